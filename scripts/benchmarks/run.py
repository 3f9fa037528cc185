#!/usr/bin/env python3
"""rtprecv's benchmarks, each side by side with its peers in one run, reported as medians and ratios.

    scripts/bench            full suite, writes BENCHMARKS.md (needs a release build; run by scripts/bench)
    scripts/bench --smoke    small sizes, one run, rtprecv only where peers are slow: checks that it all works
    scripts/bench --only S   one section (replay, webrtc_codecs, per_packet, decode, memory, live, streams, recording, report,
                             cameras),
                             printed as JSON
    RTPRECV_BASE=OLD scripts/bench --only live --rates max
                             live at the blaster's maximum only, an earlier build in turns beside this one

Figures: replay of a long 1080p capture (to /dev/null and to a file; as pcap, as pcapng and through a
pipe) against GStreamer's pcapparse ! rtph264depay, cat and a bare pipe; live UDP from the project's blaster at fixed rates and at its
maximum against FFmpeg, GStreamer and bare recvmmsg loops (the floors, counting or writing); decoding against the ffmpeg
command line; peak memory for 1x, 10x and 100x the stream; 1, 10 and 100 live streams at once against as many
ffmpeg receivers.
"""
import json
import os
import platform
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(ROOT, ".build", "release", "rtprecv")
WORK = os.path.join(ROOT, ".build", "bench")
SOURCE_PCAP = os.path.join(ROOT, "captures", "ffmpeg-1080p.pcap")
SOURCE_ES = os.path.join(ROOT, "captures", "ffmpeg-1080p.h264")
# RTPRECV_BASE=path/to/rtprecv: an earlier build, run live in turns beside this one ("rtprecv-base"), to
# tell a regression from the machine's drift. --rates 50000,max: the live rates to run.
BASE = os.environ.get("RTPRECV_BASE")
SMOKE = "--smoke" in sys.argv
ONLY = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv[:-1] else None
RUNS = 1 if SMOKE else 3


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def run_timed(cmd, stdout=subprocess.DEVNULL, stdin=None):
    """Wall seconds, user+system CPU seconds and peak RSS (KiB) of one command."""
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE, stdin=stdin)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"benchmark command failed: {' '.join(cmd)}\n{err}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def median_wall(cmd, **kw):
    return statistics.median(run_timed(cmd, **kw)[0] for _ in range(RUNS))


def repeat_capture(path, repeats, source=SOURCE_PCAP):
    """A capture of Ethernet/IPv4/UDP/RTP records repeated with continuing sequence numbers, timestamps and capture
    times (its last frame followed by its first, a frame's time later)."""
    if os.path.exists(path):
        return path
    data = open(source, "rb").read()
    records, offset = [], 24
    while offset + 16 <= len(data):
        sec, usec, caplen, origlen = struct.unpack("<IIII", data[offset:offset + 16])
        records.append((sec, usec, data[offset + 16:offset + 16 + caplen]))
        offset += 16 + caplen
    udp = 14 + 20 + 8
    seqs = [struct.unpack(">H", f[udp + 2:udp + 4])[0] for _, _, f in records]
    tss = [struct.unpack(">I", f[udp + 4:udp + 8])[0] for _, _, f in records]
    steps = [(b - a) & 0xFFFFFFFF for a, b in zip(tss, tss[1:]) if a != b]
    frame = statistics.mode(steps) if steps else 3000
    seq_span, ts_span = (seqs[-1] - seqs[0] + 1) & 0xFFFF, (tss[-1] - tss[0] + frame) & 0xFFFFFFFF
    span = records[-1][0] - records[0][0] + 1
    with open(path + ".tmp", "wb") as out:
        out.write(data[:24])
        for r in range(repeats):
            for (sec, usec, frame_bytes) in records:
                f = bytearray(frame_bytes)
                seq, ts = struct.unpack(">HI", f[udp + 2:udp + 8])
                struct.pack_into(">HI", f, udp + 2, (seq + r * seq_span) & 0xFFFF, (ts + r * ts_span) & 0xFFFFFFFF)
                out.write(struct.pack("<IIII", sec + r * span, usec, len(f), len(f)))
                out.write(f)
    os.rename(path + ".tmp", path)
    return path


def gstreamer_capture():
    """The 720p GStreamer capture (`gstcapture.py`), made once."""
    path = os.path.join(WORK, "gst-720p.pcap")
    if not os.path.exists(path):
        subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "benchmarks", "gstcapture.py"), path + ".tmp"],
                       check=True)
        os.rename(path + ".tmp", path)
    return path


def in_turns(cmds, rounds):
    """Each command once a round, in turn, for `rounds` rounds: the median of each one's wall seconds, and the
    median of its time over the first command's in the same round. The machines drift between rounds; within
    one they hardly do, so the ratio is the steadier figure."""
    walls = [[] for _ in cmds]
    for _ in range(rounds):
        for i, cmd in enumerate(cmds):
            walls[i].append(run_timed(cmd)[0])
    return ([statistics.median(w) for w in walls],
            [statistics.median(x / f for x, f in zip(w, walls[0])) for w in walls])


def build_tools():
    os.makedirs(WORK, exist_ok=True)
    for name in ("blast", "recvloop", "replayfloor"):
        src = os.path.join(ROOT, "scripts", "benchmarks", name + ".c")
        exe = os.path.join(WORK, name)
        if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
            subprocess.check_call(["cc", "-O2", "-o", exe, src])


def as_pcapng(pcap, path):
    """The same records as pcapng (section header, one interface, enhanced packet blocks), as
    Wireshark saves captures by default."""
    if os.path.exists(path):
        return path
    def block(kind, body):
        body += b"\0" * (-len(body) % 4)
        return struct.pack("<II", kind, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))
    # Record by record: a benchmark process that grew to the capture's size would pass that size on,
    # as peak RSS, to every child it forks afterwards.
    with open(pcap, "rb") as source, open(path + ".tmp", "wb") as out:
        link = struct.unpack("<I", source.read(24)[20:24])[0]
        out.write(block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)))
        out.write(block(1, struct.pack("<HHI", link, 0, 262144)))
        while len(header := source.read(16)) == 16:
            sec, usec, caplen, origlen = struct.unpack("<IIII", header)
            units = sec * 1_000_000 + usec
            out.write(block(6, struct.pack("<IIIII", 0, units >> 32, units & 0xFFFFFFFF, caplen, origlen) + source.read(caplen)))
    os.rename(path + ".tmp", path)
    return path


# MARK: Replay

def bench_replay(results):
    repeats = 8 if SMOKE else 215  # about 565 MB in full
    rounds = 1 if SMOKE else 15
    capture = repeat_capture(os.path.join(WORK, f"long-1080p-x{repeats}.pcap"), repeats)
    size = os.path.getsize(capture)
    log(f"replay: {capture} ({size >> 20} MiB)")
    read_in(capture)
    gst = ["gst-launch-1.0", "-q", "filesrc", f"location={capture}", "!", "pcapparse", "!",
           "application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,payload=96", "!",
           "rtph264depay", "!", "fakesink"]
    out_file = os.path.join(WORK, "replay-out.h264")
    floor = [os.path.join(WORK, "replayfloor"), capture, "/dev/null"]
    t_gst = median_wall(gst)
    t_file = median_wall([BIN, "--pcap", capture, "--out", out_file, "-q"])
    t_cat = median_wall(["cat", capture])
    os.remove(out_file)
    pcapng = as_pcapng(capture, os.path.join(WORK, f"long-1080p-x{repeats}.pcapng"))
    read_in(pcapng)
    read_in(capture)
    # Against the floor, in turns: the figures the target is on.
    (t_floor, t_null, t_pcapng), (_, r_null, r_pcapng) = in_turns(
        [floor, [BIN, "--pcap", capture, "--out", "/dev/null", "-q"], [BIN, "--pcap", pcapng, "--out", "/dev/null", "-q"]],
        rounds)
    # A capture of another kind: 720p from GStreamer, smaller packets, three times the frames a byte.
    gst_source = gstreamer_capture()
    gst_repeats = 4 if SMOKE else 63  # about 540 MB in full
    gst_capture = repeat_capture(os.path.join(WORK, f"gst-720p-x{gst_repeats}.pcap"), gst_repeats, source=gst_source)
    read_in(gst_capture)
    (t_gst_floor, t_gst_null), (_, r_gst_null) = in_turns(
        [[os.path.join(WORK, "replayfloor"), gst_capture, "/dev/null"], [BIN, "--pcap", gst_capture, "--out", "/dev/null", "-q"]],
        rounds)
    # The same bytes just written, as a capture tcpdump has only now finished: in small page-cache folios.
    fresh = os.path.join(WORK, "fresh.pcap")
    subprocess.run(["cp", capture, fresh], check=True)
    (t_fresh_floor, t_fresh, t_fresh_read), (_, r_fresh, r_fresh_read) = in_turns(
        [[os.path.join(WORK, "replayfloor"), fresh, "/dev/null"], [BIN, "--pcap", fresh, "--out", "/dev/null", "-q"],
         ["sh", "-c", f"'{BIN}' --pcap - --out /dev/null -q < '{fresh}'"]], max(1, rounds // 3))
    os.remove(fresh)
    t_pipe = median_wall(["sh", "-c", f"cat '{capture}' | '{BIN}' --pcap - --out /dev/null -q"])
    t_pipe_floor = median_wall(["sh", "-c", f"cat '{capture}' | dd bs=1M of=/dev/null status=none"])
    results["replay"] = {"bytes": size, "rounds": rounds, "gstreamer": t_gst, "rtprecv_null": t_null, "rtprecv_file": t_file,
                         "cat": t_cat, "floor": t_floor, "rtprecv_pcapng": t_pcapng, "rtprecv_pipe": t_pipe,
                         "pipe_floor": t_pipe_floor, "fresh_floor": t_fresh_floor, "rtprecv_fresh": t_fresh,
                         "rtprecv_fresh_read": t_fresh_read, "ratio_null": r_null, "ratio_pcapng": r_pcapng,
                         "ratio_fresh": r_fresh, "ratio_fresh_read": r_fresh_read,
                         "gst_bytes": os.path.getsize(gst_capture), "gst_floor": t_gst_floor, "gst_null": t_gst_null,
                         "ratio_gst_null": r_gst_null}


def bench_webrtc_codecs(results):
    """VP8 and VP9 replayed (FFmpeg's captures, repeated), against GStreamer's depayloaders and the floor, in turns.
    AV1 has no depayloader in Debian's GStreamer to compare with."""
    repeats = 8 if SMOKE else 2000  # about 550 and 470 MB in full
    rounds = 1 if SMOKE else 9
    rows = {}
    for codec, name in (("vp8", "ffmpeg-vp8"), ("vp9", "ffmpeg-vp9")):
        capture = repeat_capture(os.path.join(WORK, f"{name}-x{repeats}.pcap"), repeats,
                                 source=os.path.join(ROOT, "captures", name + ".pcap"))
        read_in(capture)
        gst = ["gst-launch-1.0", "-q", "filesrc", f"location={capture}", "!", "pcapparse", "!",
               f"application/x-rtp,media=video,clock-rate=90000,encoding-name={codec.upper()},payload=96", "!",
               f"rtp{codec}depay", "!", "fakesink"]
        floor = [os.path.join(WORK, "replayfloor"), capture, "/dev/null"]
        ours = [BIN, "--pcap", capture, "--codec", codec, "--out", "/dev/null", "-q"]
        (t_ours, t_gst, t_floor), (_, r_gst, r_floor) = in_turns([ours, gst, floor], rounds)
        rows[codec] = {"bytes": os.path.getsize(capture), "rtprecv": t_ours, "gstreamer": t_gst, "floor": t_floor,
                       "ratio_gstreamer": r_gst, "ratio_floor": r_floor}
    results["webrtc_codecs"] = rows


def bench_per_packet(results):
    """CPU per packet for each codec on streams of one size and bitrate (320x240, about 300-500 kbit/s; FFmpeg's
    H.264, VP8 and VP9 captures, and AV1 from libaom packetized by scripts/av1-rtp-packetize), each repeated, to
    /dev/null, in turns. The issue's target: VP8 and AV1 within 1.2x of H.264."""
    repeats = 8 if SMOKE else 1500
    rounds = 1 if SMOKE else 15  # each replay lasts about 0.1 s
    av1 = os.path.join(WORK, "av1-source.pcap")
    if not os.path.exists(av1):
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "av1-rtp-packetize"),
                        os.path.join(ROOT, "captures", "av1-source.ivf"), av1], check=True)
    # H.264's parameter sets are in its SDP only: without it, every frame would be dropped unwritten.
    sources = [("h264", os.path.join(ROOT, "captures", "ffmpeg-bframes.pcap"),
                ["--sdp", os.path.join(ROOT, "captures", "ffmpeg-bframes.sdp")]),
               ("vp8", os.path.join(ROOT, "captures", "ffmpeg-vp8.pcap"), ["--codec", "vp8"]),
               ("vp9", os.path.join(ROOT, "captures", "ffmpeg-vp9.pcap"), ["--codec", "vp9"]),
               ("av1", av1, ["--codec", "av1"])]
    captures, packets = [], []
    for codec, source, selection in sources:
        capture = repeat_capture(os.path.join(WORK, f"per-packet-{codec}-x{repeats}.pcap"), repeats, source=source)
        read_in(capture)
        command = [BIN, "--pcap", capture] + selection + ["--out", "/dev/null", "-q"]
        require_every_frame_written(command, codec)
        captures.append(command)
        packets.append(records_in(capture))
    walls, ratios = in_turns(captures, rounds)
    ns = [w / n * 1e9 for w, n in zip(walls, packets)]
    results["per_packet"] = {codec: {"packets": n, "seconds": w, "ns_per_packet": x, "vs_h264": x / ns[0]}
                             for (codec, _, _), n, w, x in zip(sources, packets, walls, ns)}


def require_every_frame_written(command, name):
    """Stops the benchmark if a replay it times drops frames: a stream that writes nothing is cheap to receive."""
    with tempfile.TemporaryDirectory() as directory:
        stats = os.path.join(directory, "stats.json")
        subprocess.run(command + ["--stats-json", stats], check=True)
        stream = json.load(open(stats))["streams"][0]
    dropped = sum(stream["frames_dropped"].values())
    if stream["frames_written"] == 0 or dropped:
        sys.exit(f"bench: {name} wrote {stream['frames_written']} frames and dropped {dropped}")


def records_in(path):
    """The records of a classic pcap."""
    count, offset = 0, 24
    with open(path, "rb") as f:
        while True:
            f.seek(offset)
            header = f.read(16)
            if len(header) < 16:
                return count
            offset += 16 + struct.unpack("<I", header[8:12])[0]
            count += 1


def read_in(path):
    """Into the page cache as a file read from disk is (in large folios): whatever of it was cached
    is dropped first, since a file's cached pages keep the folios they were written in."""
    with open(path, "rb") as f:
        os.fsync(f.fileno())
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    subprocess.run(["cat", path], stdout=subprocess.DEVNULL)


# MARK: Live

def start_receiver(kind, port, out, sdp):
    if kind.startswith("floor"):
        # floor-write: the bare loop that also writes each frame's payloads, the floor for writing receivers.
        p = subprocess.Popen([os.path.join(WORK, "recvloop"), str(port), "1.5"] + ([out] if kind == "floor-write" else []),
                             stdout=subprocess.PIPE, text=True)
        p.stdout.readline()
        return p
    if kind.startswith("rtprecv"):
        # rtprecv-null: the same receive path with nothing written, to tell its cost from the file's.
        target = "/dev/null" if kind == "rtprecv-null" else out
        p = subprocess.Popen([BASE if kind == "rtprecv-base" else BIN, "--port", str(port), "--bind", "127.0.0.1", "--out", target, "-q",
                              "--stats-json", out + ".json", "--timeout", "1.5", "--exit-on-timeout"],
                             stderr=subprocess.PIPE)
    elif kind == "ffmpeg":
        p = subprocess.Popen(["ffmpeg", "-v", "error", "-y", "-protocol_whitelist", "file,udp,rtp", "-buffer_size", "8388608",
                              "-i", sdp, "-c", "copy", "-f", "h264", out], stdin=subprocess.DEVNULL, stderr=subprocess.PIPE)
    else:
        caps = "application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,payload=96"
        p = subprocess.Popen(["gst-launch-1.0", "-q", "-e", "udpsrc", f"port={port}", "buffer-size=8388608",
                              f"caps={caps}", "!", "rtpjitterbuffer", "latency=50", "!", "rtph264depay", "!",
                              "video/x-h264,stream-format=byte-stream,alignment=au", "!", "filesink", f"location={out}"],
                             stderr=subprocess.PIPE)
    wait_bound(port)
    time.sleep(0.5)
    return p


def wait_bound(port, seconds=15):
    """Until a UDP socket is bound to `port` (/proc/net/udp): a receiver slow to start on a busy
    machine would otherwise miss a blast at the maximum rate, which lasts half a second."""
    suffix = f":{port:04X}"
    deadline = time.time() + seconds
    while time.time() < deadline:
        for table in ("/proc/net/udp", "/proc/net/udp6"):
            with open(table) as f:
                if any(line.split()[1].endswith(suffix) for line in list(f)[1:]):
                    return
        time.sleep(0.05)


def frames_in(path):
    r = subprocess.run(["ffprobe", "-v", "error", "-count_packets", "-show_entries", "stream=nb_read_packets",
                        "-of", "csv=p=0", path], capture_output=True, text=True)
    return int(r.stdout.strip() or 0)


def live_run(kind, rate, repeats, port, sdp, extra=()):
    """One receiver against one blast: its CPU, what it kept and, for the floors, what recvloop printed."""
    out = os.path.join(WORK, f"live-{kind}.h264")
    if os.path.exists(out):
        os.remove(out)
    receiver = start_receiver(kind, port, out, sdp)
    blast = subprocess.run([os.path.join(WORK, "blast"), SOURCE_PCAP, "127.0.0.1", str(port), rate, str(repeats)] + list(extra),
                           capture_output=True, text=True, check=True).stdout.split()
    sent_packets, sent_frames, achieved = int(blast[1]), int(blast[3]), float(blast[8].strip("("))
    if kind in ("ffmpeg", "gstreamer"):
        time.sleep(1.0)
        receiver.send_signal(signal.SIGINT)
    deadline = time.time() + 15
    while True:
        pid, status, usage = os.wait4(receiver.pid, os.WNOHANG)
        if pid:
            break
        if time.time() > deadline:  # a receiver that does not stop: its CPU still counts
            receiver.kill()
            deadline = float("inf")
        time.sleep(0.05)
    receiver.returncode = 0
    row = {"rate": rate, "achieved_pps": achieved, "receiver": kind, "packets_sent": sent_packets,
           "frames_sent": sent_frames, "cpu_us_per_packet": (usage.ru_utime + usage.ru_stime) / sent_packets * 1e6,
           "user_us_per_packet": usage.ru_utime / sent_packets * 1e6}
    if kind.startswith("floor"):
        printed = [int(x) for x in receiver.stdout.read().split()]
        row.update(packets_received=printed[0], kernel_drops=printed[2], frames_kept=None)
        if len(printed) == 7:
            row["frames_written"] = printed[3]
            row["write_latency_us"] = {"p50": printed[4], "p99": printed[5], "max": printed[6]}
    elif kind.startswith("rtprecv"):
        stats = json.load(open(out + ".json"))
        row.update(frames_kept=stats["streams"][0]["frames_written"] if stats["streams"] else 0,
                   kernel_drops=stats["kernel_drops"], packets_received=stats["datagrams"],
                   write_latency_us=stats.get("write_latency_us", {}))
    else:
        row.update(frames_kept=frames_in(out) if os.path.exists(out) else 0, kernel_drops=None, packets_received=None)
    return row


def median_row(runs):
    """The median CPU of several runs of one receiver, with the worst of what it kept."""
    row = dict(runs[0])
    for key in ("cpu_us_per_packet", "user_us_per_packet", "achieved_pps"):
        row[key] = statistics.median(r[key] for r in runs)
    for key in ("frames_kept", "packets_received"):
        if row[key] is not None:
            row[key] = min(r[key] for r in runs)
    if row["kernel_drops"] is not None:
        row["kernel_drops"] = max(r["kernel_drops"] for r in runs)
    return row


def bench_live(results):
    repeats = 10 if SMOKE else 60
    rates = ["100000"] if SMOKE else ["50000", "100000", "150000", "max"]
    if "--rates" in sys.argv[:-1]:
        rates = sys.argv[sys.argv.index("--rates") + 1].split(",")
    kinds = (["floor", "floor-write", "rtprecv"] if SMOKE
             else ["floor", "floor-write", "rtprecv", "rtprecv-null", "ffmpeg", "gstreamer"])
    if BASE:
        kinds.append("rtprecv-base")
    port = 25000 + os.getpid() % 10000
    sdp = os.path.join(WORK, "live.sdp")
    with open(sdp, "w") as f:
        f.write(f"v=0\no=- 0 0 IN IP4 127.0.0.1\ns=bench\nc=IN IP4 127.0.0.1\nt=0 0\nm=video {port} RTP/AVP 96\n"
                "a=rtpmap:96 H264/90000\na=fmtp:96 packetization-mode=1\n")
    rows = []
    for rate in rates:
        runs = {kind: [] for kind in kinds}
        for _ in range(RUNS):  # the receivers take turns, so a slow spell of the machine hits them alike
            for kind in kinds:
                runs[kind].append(live_run(kind, rate, repeats, port, sdp))
        for kind in kinds:
            row = median_row(runs[kind])
            rows.append(row)
            log(f"live {rate:>6} {kind:>12}: {row['frames_kept']}/{row['frames_sent']} frames, "
                f"{row['cpu_us_per_packet']:.2f} us/pkt CPU ({row['user_us_per_packet']:.2f} user), drops {row['kernel_drops']}")
    results["live"] = rows
    # Latency at a rate a camera sends: rtprecv in order and with every pair of packets swapped, and the
    # writing floor in order (it has no reordering), each the median of the runs' percentiles.
    latency = []
    for kind, mode in [("floor-write", "in order"), ("rtprecv", "in order"), ("rtprecv", "reordered")]:
        runs = [live_run(kind, "20000", repeats, port, sdp, ["reorder"] if mode == "reordered" else [])
                for _ in range(RUNS)]
        figures = {key: statistics.median(r["write_latency_us"][key] for r in runs) for key in ("p50", "p99", "max")}
        frames = min(r["frames_written"] if kind.startswith("floor") else r["frames_kept"] for r in runs)
        latency.append({"receiver": kind, "mode": mode, "frames": frames, **figures})
        log(f"latency {kind} {mode}: {latency[-1]}")
    results["latency"] = latency


# MARK: Many streams

def cpu_ns(pids):
    """CPU time of processes so far, every thread's, in nanoseconds (schedstat: finer than the clock ticks of stat)."""
    total = 0
    for pid in pids:
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                    total += int(f.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total


def streams_run(kind, streams, rate_per_stream, repeats, port, container="h264"):
    """`streams` streams blasted at once to as many ports: rtprecv as one process with --port LOW-HIGH,
    or one `ffmpeg -c copy` a stream, each on an even port (it takes the next for RTCP). CPU is counted
    from the blast's start to just after its end, so that start-up (100 ffmpeg processes') and closing
    are left out; frames kept are each stream's. `container`: Annex-B (h264) or MP4 files, rtprecv's
    fragmented (--mp4), ffmpeg's as `-f mp4` writes it."""
    stride = 1 if kind == "rtprecv" else 2
    directory = os.path.join(WORK, f"streams-{kind}")
    subprocess.run(["rm", "-rf", directory])
    os.makedirs(directory)
    if kind == "rtprecv":
        output = ["--mp4" if container == "mp4" else "--out", os.path.join(directory, "{port}." + container)]
        receivers = [subprocess.Popen([BIN, "--port", f"{port}-{port + streams - 1}", "--bind", "127.0.0.1"] + output + ["-q",
                                       "--stats-json", os.path.join(directory, "stats.json"),
                                       "--timeout", "1.5", "--exit-on-timeout"], stderr=subprocess.PIPE)]
    else:
        receivers = []
        for k in range(streams):
            sdp = os.path.join(directory, f"{port + 2 * k}.sdp")
            with open(sdp, "w") as f:
                f.write(f"v=0\no=- 0 0 IN IP4 127.0.0.1\ns=bench\nc=IN IP4 127.0.0.1\nt=0 0\nm=video {port + 2 * k} RTP/AVP 96\n"
                        "a=rtpmap:96 H264/90000\na=fmtp:96 packetization-mode=1\n")
            receivers.append(subprocess.Popen(["ffmpeg", "-v", "error", "-y", "-protocol_whitelist", "file,udp,rtp",
                                               "-buffer_size", "8388608", "-i", sdp, "-c", "copy", "-f", container,
                                               os.path.join(directory, f"{port + 2 * k}.{container}")],
                                              stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    # Every port bound before the blast: a hundred ffmpeg processes take a while to start, longer on
    # a busy machine. rtprecv stops after 1.5 s without a packet, counted from its start too, so the
    # blast follows soon after its ports are bound.
    for k in range(streams):
        wait_bound(port + stride * k)
    time.sleep(0.5)
    pids = [r.pid for r in receivers]
    before = cpu_ns(pids)
    blast = subprocess.run([os.path.join(WORK, "blast"), SOURCE_PCAP, "127.0.0.1", str(port), str(rate_per_stream * streams),
                            str(repeats), f"streams={streams}", f"stride={stride}"], capture_output=True, text=True,
                           check=True).stdout.split()
    time.sleep(0.3)
    cpu = cpu_ns(pids) - before
    sent_packets, sent_frames = int(blast[1]), int(blast[3])
    if kind != "rtprecv":
        for r in receivers:
            r.send_signal(signal.SIGINT)
    for r in receivers:
        try:
            r.wait(timeout=30)
        except subprocess.TimeoutExpired:
            r.kill()
            r.wait()
    if kind == "rtprecv":
        stats = json.load(open(os.path.join(directory, "stats.json")))
        kept = [sum(s["frames_written"] for s in stream["streams"]) for stream in stats["all_streams"]]
        drops = stats["kernel_drops"]
    else:
        kept = [(frames_in if container == "h264" else packets_in)(os.path.join(directory, f"{port + 2 * k}.{container}"))
                for k in range(streams)]
        drops = None
    kept += [0] * (streams - len(kept))
    return {"streams": streams, "receiver": kind, "packets_sent": sent_packets, "frames_sent": sent_frames,
            "cpu_us_per_packet": cpu / 1e3 / sent_packets, "frames_kept_min": min(kept),
            "streams_whole": sum(1 for k in kept if k == sent_frames), "kernel_drops": drops}


def packets_in(path):
    """Video packets in a container file, as ffprobe counts them (0 for a file ffprobe cannot read)."""
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
                        "stream=nb_read_packets", "-of", "csv=p=0", path], capture_output=True, text=True)
    return int(r.stdout.strip() or 0) if r.returncode == 0 else 0


def bench_recording(results):
    """Recording to MP4, Matroska and MPEG-TS against writing Annex-B, replaying the long 1080p capture to files
    in turns (the issue's target: MP4 within 1.1x); and live, 1 and 100 streams recorded to MP4 by one rtprecv
    against as many `ffmpeg -i X.sdp -c copy -f mp4`."""
    repeats = 8 if SMOKE else 215
    rounds = 1 if SMOKE else 9
    capture = repeat_capture(os.path.join(WORK, f"long-1080p-x{repeats}.pcap"), repeats)
    read_in(capture)
    # Into memory where a tmpfs has room, and --fsync none: otherwise the disk's speed is what is
    # measured (the recordings would flush 565 MB as they close, which --out never does, and each run
    # would wait on the write-back the one before left).
    shm = "/dev/shm"
    roomy = os.path.isdir(shm) and shutil.disk_usage(shm).free > 2 * os.path.getsize(capture)
    out = os.path.join(shm if roomy else WORK, f"rtprecv-bench-recording-{os.getpid()}")
    cmds = [[BIN, "--pcap", capture, "--out", out + ".h264", "-q"]] + [
        [BIN, "--pcap", capture, f"--{c}", f"{out}.{c}", "--fsync", "none", "-q"] for c in ("mp4", "mkv", "ts")]
    walls, ratios = in_turns(cmds, rounds)
    replay = {name: {"seconds": w, "vs_annexb": r} for name, w, r in zip(("annexb", "mp4", "mkv", "ts"), walls, ratios)}
    # What a recording pays once a process, whatever its length: loading libavformat and its
    # dependencies, measured on a capture of a few frames.
    short = [os.path.join(ROOT, "captures", "ffmpeg-bframes.pcap"), "--sdp", os.path.join(ROOT, "captures", "ffmpeg-bframes.sdp")]
    (short_annexb, short_mp4), _ = in_turns([[BIN, "--pcap"] + short + ["--out", out + ".h264", "-q"],
                                             [BIN, "--pcap"] + short + ["--mp4", out + ".mp4", "--fsync", "none", "-q"]],
                                            rounds)
    startup = max(0.0, short_mp4 - short_annexb)
    for c in ("h264", "mp4", "mkv", "ts"):
        os.remove(f"{out}.{c}")
    counts = [1, 10] if SMOKE else [1, 100]
    port = 30000 + os.getpid() % 10000
    rows = []
    for streams in counts:
        # rtprecv's MP4 and its Annex-B of the same streams in turns, a round each, so that the
        # ratio of each round's pair is what the machine's drift leaves alone.
        turns = {"h264": [], "mp4": []}
        for _ in range(RUNS):
            for container in turns:
                turns[container].append(streams_run("rtprecv", streams, 400, 1 if SMOKE else 3, port, container=container))
        ratios = [m["cpu_us_per_packet"] / a["cpu_us_per_packet"] for a, m in zip(turns["h264"], turns["mp4"])]
        new = [median_run(turns["h264"], "Annex-B", 1.0), median_run(turns["mp4"], "MP4", statistics.median(ratios))]
        if not SMOKE:
            new.append(median_run([streams_run("ffmpeg", streams, 400, 3, port, container="mp4") for _ in range(RUNS)], "MP4", None))
        for row in new:
            log(f"recording {streams:>3} {row['receiver']:>8} {row['output']:>7}: {row['cpu_us_per_packet']:.2f} us/pkt CPU, "
                f"fewest frames kept {row['frames_kept_min']} of {row['frames_sent']}")
        rows += new
    results["recording"] = {"bytes": os.path.getsize(capture), "rounds": rounds, "replay": replay, "startup": startup,
                            "live": rows}


def median_run(runs, output, vs_annexb):
    """One row of runs alike: the median CPU a packet, the fewest frames kept."""
    row = dict(runs[0])
    row["cpu_us_per_packet"] = statistics.median(r["cpu_us_per_packet"] for r in runs)
    row["frames_kept_min"] = min(r["frames_kept_min"] for r in runs)
    row["output"] = output
    row["vs_annexb"] = vs_annexb
    return row


def report_recording(results):
    """The recording section of BENCHMARKS.md."""
    r = results["recording"]
    lines = [
        f"## Recording: the {r['bytes'] / 1e6:.0f} MB 1080p capture replayed into files, in turns",
        "",
        "| output | seconds | × Annex-B |",
        "|---|---|---|",
    ] + [f"| `{flag}` | {r['replay'][name]['seconds']:.3f} | {r['replay'][name]['vs_annexb']:.3f} |"
         for name, flag in (("annexb", "--out FILE.h264"), ("mp4", "--mp4 FILE"), ("mkv", "--mkv FILE"), ("ts", "--ts FILE"))] + [
        "",
        "Target: MP4 within 1.1× of Annex-B. The files are written to /dev/shm, and the recordings run with "
        "`--fsync none`, as `--out` makes nothing durable either: what is measured is the work, not the disk.",
        "",
        f"Of the difference, {r['startup'] * 1000:.0f} ms is paid once a process: loading libavformat and the "
        "libraries Debian's build links it with (a recording of a few frames, against Annex-B of the same). "
        f"Without it, MP4 takes {(r['replay']['mp4']['seconds'] - r['startup']) / r['replay']['annexb']['seconds']:.2f}× "
        "Annex-B's time. The rest is two copies of every frame that Annex-B does without (it writes the payloads "
        "from the mapped capture): into one piece with NAL unit lengths for its packet, and libavformat's into "
        "the fragment it builds before writing the moof in front. MP4 and Matroska hand their fragments to the "
        "file directly, not through AVIO's buffer (which copied once more).",
        "",
        "## Recording live streams (about 5 Mbit/s each): rtprecv's MP4 against its Annex-B in turns, and one "
        "`ffmpeg -i X.sdp -c copy -f mp4` a stream",
        "",
        "| streams | receiver | output | CPU µs per packet | × rtprecv's Annex-B | × ffmpeg | fewest frames kept of sent |",
        "|---|---|---|---|---|---|---|",
    ]
    ffmpeg = {row["streams"]: row["cpu_us_per_packet"] for row in r["live"] if row["receiver"] == "ffmpeg"}
    for row in r["live"]:
        versus = f"{row['cpu_us_per_packet'] / ffmpeg[row['streams']]:.2f}" if row["streams"] in ffmpeg else "–"
        annexb = f"{row['vs_annexb']:.2f}" if row.get("vs_annexb") else "–"
        lines.append(f"| {row['streams']} | {row['receiver']} | {row.get('output', 'MP4')} | {row['cpu_us_per_packet']:.2f} | "
                     f"{annexb} | {versus} | {row['frames_kept_min']} of {row['frames_sent']} |")
    lines += ["", "Targets: MP4 within 1.1× the CPU of Annex-B from the same streams (the ratio is the median of each "
              "round's), and less CPU per stream than ffmpeg's. rtprecv's MP4 is fragmented (crash-safe); ffmpeg's is "
              "not, and writes its index at the end. Frames kept are ffprobe's packet counts for ffmpeg's files. Live, "
              "a packet's cost is mostly its wake-up and its receipt, the same whatever the output; what MP4 adds is "
              "a copy of each frame with NAL unit lengths and libavformat's fragments, each built in a buffer it "
              "grows, fills and frees (perf: copies and the page faults of fresh memory).", ""]
    return lines


def bench_report(results):
    """`--report` against the same replay without it, in turns (the issue's target: at most 1.1x): the 1080p capture
    as it is (1 s), repeated to 20 s and to 215 s, and GStreamer's H.264 and AAC session."""
    rounds = 1 if SMOKE else 9
    gst = os.path.join(ROOT, "captures", "gst-h264-aac")
    inputs = [("1080p, 1 s", ["--pcap", SOURCE_PCAP]),
              ("1080p, 20 s", ["--pcap", repeat_capture(os.path.join(WORK, "long-1080p-x20.pcap"), 20)]),
              ("H.264 and AAC, 4 s", ["--pcap", gst + ".pcap", "--sdp", gst + ".sdp"])]
    if not SMOKE:
        inputs.insert(2, ("1080p, 215 s", ["--pcap", repeat_capture(os.path.join(WORK, "long-1080p-x215.pcap"), 215)]))
    out = os.path.join(WORK, "report")
    rows = []
    for name, arguments in inputs:
        read_in(arguments[1])
        plain = [BIN] + arguments + ["--out", out + ".h264", "-q"]
        walls, ratios = in_turns([plain, plain + ["--report", out + ".html"]], rounds)
        rows.append({"input": name, "seconds": walls[0], "with_report": walls[1], "ratio": ratios[1]})
        log(f"report {name}: {walls[0]:.3f} s, with --report {walls[1]:.3f} s ({ratios[1]:.2f}x)")
    results["report"] = {"rounds": rounds, "rows": rows}


def report_report(results):
    """The --report section of BENCHMARKS.md."""
    lines = ["## `--report`: a replay with and without the page, in turns", "",
             "| capture | seconds | with `--report` | × without |", "|---|---|---|---|"]
    lines += [f"| {r['input']} | {r['seconds']:.3f} | {r['with_report']:.3f} | {r['ratio']:.2f} |" for r in results["report"]["rows"]]
    lines += ["", "Target: at most 1.1×. The pictures are decoded on a thread of their own while the replay goes on, and "
              "the run helps with those left when it ends; loading libavcodec (about 20 ms, most of it its dependencies' "
              "start-up) and decoding a 1080p keyframe (about 11 ms) are costs that a replay of a few seconds cannot hide.", ""]
    return lines


def bench_streams(results):
    """1, 10 and 100 streams of about 5 Mbit/s each (400 packets/s of the 1080p capture)."""
    counts = [1, 10] if SMOKE else [1, 10, 100]
    kinds = ["rtprecv"] if SMOKE else ["rtprecv", "ffmpeg"]
    repeats = 1 if SMOKE else 3
    port = 40000 + os.getpid() % 10000
    rows = []
    for streams in counts:
        runs = {kind: [] for kind in kinds}
        for _ in range(RUNS):
            for kind in kinds:
                runs[kind].append(streams_run(kind, streams, 400, repeats, port))
        for kind in kinds:
            row = dict(runs[kind][0])
            row["cpu_us_per_packet"] = statistics.median(r["cpu_us_per_packet"] for r in runs[kind])
            for key in ("frames_kept_min", "streams_whole"):
                row[key] = min(r[key] for r in runs[kind])
            if row["kernel_drops"] is not None:
                row["kernel_drops"] = max(r["kernel_drops"] for r in runs[kind])
            rows.append(row)
            log(f"streams {streams:>3} {kind:>8}: {row['streams_whole']}/{streams} whole, "
                f"{row['cpu_us_per_packet']:.2f} us/pkt CPU, drops {row['kernel_drops']}")
    results["streams"] = rows


# MARK: Decode and memory

def bench_decode(results):
    repeats = 2 if SMOKE else 10
    capture = repeat_capture(os.path.join(WORK, f"long-1080p-x{repeats}.pcap"), repeats)
    es = os.path.join(WORK, f"long-1080p-x{repeats}.h264")
    if not os.path.exists(es):
        with open(es, "wb") as f:
            for _ in range(repeats):
                f.write(open(SOURCE_ES, "rb").read())
    t_ffmpeg = median_wall(["ffmpeg", "-v", "error", "-i", es, "-f", "rawvideo", "-y", "/dev/null"])
    t_ours = median_wall([BIN, "--pcap", capture, "--decode", "--yuv", "/dev/null", "-q"])
    results["decode"] = {"frames": 30 * repeats, "ffmpeg": t_ffmpeg, "rtprecv": t_ours}


def peak_memory(cmd):
    """Peak private memory (RssAnon, KiB) of a command, from /proc/PID/status read as often as it can
    be while the command runs, and its peak RSS (the kernel's, from wait4)."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    anon = 0
    while True:
        try:
            with open(f"/proc/{p.pid}/status") as f:
                for line in f:
                    if line.startswith("RssAnon:"):
                        anon = max(anon, int(line.split()[1]))
        except (FileNotFoundError, ProcessLookupError):
            pass
        pid, status, usage = os.wait4(p.pid, os.WNOHANG)
        if pid:
            p.returncode = os.waitstatus_to_exitcode(status)
            return anon, usage.ru_maxrss


def bench_memory(results):
    rows = []
    for repeats in ([1, 10] if SMOKE else [1, 10, 100]):
        capture = repeat_capture(os.path.join(WORK, f"long-1080p-x{repeats}.pcap"), repeats)
        samples = [peak_memory([BIN, "--pcap", capture, "--out", "/dev/null", "-q"]) for _ in range(RUNS)]
        rows.append({"repeats": repeats, "peak_anon_kib": max(a for a, _ in samples),
                     "peak_rss_kib": max(r for _, r in samples)})
    results["memory"] = rows


# MARK: Report

def report(results):
    r = results["replay"]
    cpu = subprocess.run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"], capture_output=True, text=True).stdout.strip()
    lines = [
        "# Benchmarks",
        "",
        f"Measured {time.strftime('%Y-%m-%d')} on {os.cpu_count()} cores ({cpu or platform.machine()}), "
        f"{platform.system()} {platform.release()}, release build. Medians of {RUNS} runs, side by side in one session;",
        "the machines are noisy, so the ratios are the figures to read. Reproduce with `scripts/bench`.",
        "",
        f"## Replay: {r['bytes'] / 1e6:.0f} MB capture of a 1080p 20 Mbit/s stream, from the page cache",
        "",
        "| command | seconds | × GStreamer |",
        "|---|---|---|",
        f"| `gst-launch-1.0 filesrc ! pcapparse ! rtph264depay ! fakesink` | {r['gstreamer']:.3f} | 1 |",
        f"| `rtprecv --pcap X --out /dev/null` | {r['rtprecv_null']:.3f} | {r['rtprecv_null'] / r['gstreamer']:.3f} |",
        f"| `rtprecv --pcap X --out FILE` | {r['rtprecv_file']:.3f} | {r['rtprecv_file'] / r['gstreamer']:.3f} |",
        f"| `cat X > /dev/null` | {r['cat']:.3f} | {r['cat'] / r['gstreamer']:.3f} |",
        f"| floor: `replayfloor X /dev/null` | {r['floor']:.3f} | {r['floor'] / r['gstreamer']:.3f} |",
        f"| `rtprecv --pcap X.pcapng --out /dev/null` (the same records as pcapng) | {r['rtprecv_pcapng']:.3f} | "
        f"{r['rtprecv_pcapng'] / r['gstreamer']:.3f} |",
        f"| `cat X \\| rtprecv --pcap - --out /dev/null` | {r['rtprecv_pipe']:.3f} | {r['rtprecv_pipe'] / r['gstreamer']:.3f} |",
        f"| `cat X \\| dd bs=1M of=/dev/null` (the pipe alone) | {r['pipe_floor']:.3f} | {r['pipe_floor'] / r['gstreamer']:.3f} |",
        "",
        "Target: rtprecv ≤ 0.15× GStreamer's time to /dev/null. GStreamer's pcapparse reads no pcapng.",
        "",
        "## Replay of VP8 and VP9 (FFmpeg's RTP muxer, 320x240, the capture repeated), from the page cache",
        "",
        "| codec | MB | rtprecv --codec C --out /dev/null, seconds | GStreamer `pcapparse ! rtpC depay ! fakesink`, seconds "
        "| GStreamer × rtprecv | floor × rtprecv |",
        "|---|---|---|---|---|---|",
    ] + [
        f"| {c.upper()} | {w['bytes'] / 1e6:.0f} | {w['rtprecv']:.3f} | {w['gstreamer']:.3f} | {w['ratio_gstreamer']:.2f} | "
        f"{w['ratio_floor']:.2f} |" for c, w in results["webrtc_codecs"].items()
    ] + [
        "",
        "Ratios are medians of the per-round ratios (each command once a round, in turn). The floor is `replayfloor` "
        "as above. AV1: Debian's GStreamer has no depayloader to compare with.",
        "",
        "## CPU per packet by codec, on streams of one size and bitrate (320x240, 300 to 500 kbit/s, repeated), to /dev/null",
        "",
        "| codec | packets | seconds | ns per packet | × H.264 |",
        "|---|---|---|---|---|",
    ] + [
        f"| {c.upper()} | {p['packets']} | {p['seconds']:.3f} | {p['ns_per_packet']:.0f} | {p['vs_h264']:.2f} |"
        for c, p in results["per_packet"].items()
    ] + [
        "",
        "Target (VP8 and AV1): within 1.2× of H.264. Each replay writes every frame it times (the section stops if "
        "one drops any): H.264 with its SDP, since its parameter sets are there only. VP8, VP9 and AV1 frames refer "
        "to the payloads where they lie in the mapped capture, as H.264's do, AV1's OBUs in fragments too.",
        "",
        "The floor (`scripts/benchmarks/replayfloor.c`) maps the capture, walks its records and writes each RTP "
        "payload slice with writev, 1024 at a time: no reordering, no depacketization, no checks.",
        "",
        "| to /dev/null | rtprecv, seconds | floor, seconds | × floor |",
        "|---|---|---|---|",
        f"| pcap | {r['rtprecv_null']:.3f} | {r['floor']:.3f} | {r['ratio_null']:.2f} |",
        f"| pcapng | {r['rtprecv_pcapng']:.3f} | {r['floor']:.3f} | {r['ratio_pcapng']:.2f} |",
        f"| pcap of another kind: {r['gst_bytes'] / 1e6:.0f} MB of 720p 6.3 Mbit/s from GStreamer's rtph264pay "
        f"(MTU 1400, three times the frames a byte) | {r['gst_null']:.3f} | {r['gst_floor']:.3f} | {r['ratio_gst_null']:.2f} |",
        f"| pcap just written (small page-cache folios) | {r['rtprecv_fresh']:.3f} | {r['fresh_floor']:.3f} | "
        f"{r['ratio_fresh']:.2f} |",
        f"| the same, read(2) from standard input instead of mapped | {r['rtprecv_fresh_read']:.3f} | {r['fresh_floor']:.3f} | "
        f"{r['ratio_fresh_read']:.2f} |",
        "",
        f"Target: ≤ 1.5× the floor. Each row's commands run in turns, {r['rounds']} round{'' if r['rounds'] == 1 else 's'} (a third as many for the "
        "rows just written); the ratio is the median of each round's, since the machine drifts between rounds more "
        "than within one. The page cache keeps a file in the folios it came in with: large ones for a file read "
        "from disk (the other rows read the captures in so), 4 KiB pages for one written just before, which cost "
        "the floor and rtprecv a page fault each 64 KiB or so. The floor waits on each record's header in turn (it "
        "finds a record only through the one before). rtprecv walks a mapped capture on a second thread, batches "
        "of packets ahead of the receiving side, and prefetches the headers on both: its time is the receiving "
        "side's, not the walk's and the receiver's together. `scripts/benchmarks/gstcapture.py` makes the 720p "
        "capture through GStreamer, without a network.",
        "",
        "What each change bought, in the run that made it (machines differ: this floor has taken from 0.014 s to "
        "0.10 s, with the page cache's folios and the machine's load):",
        "",
        "- classic pcap walked in place instead of libpcap's fread, and no dynamic exclusivity checks on the hot "
        "path: 0.20 s → 0.17 s;",
        "- one read-only mapping instead of read(2) into 1 MiB buffers: 4.3× → 3.0× the floor, private memory "
        "1.4 MB;",
        "- a prefetch of the next record's header: 51.2 → 49.9 ms;",
        "- a prefetch of the record after it too, guessed from this record's length: 5–20% in A/B runs, "
        "1.4–1.6× → 1.0–1.2× the floor;",
        "- the Swift runtime linked statically: 1.8 ms less at start-up;",
        "- on a machine where the floor took 15–19 ms and rtprecv 4.0–4.2× it (1080p) and 3.9–4.0× (720p): the "
        "packet path's layers taken apart and tightened (the walk's state in locals, one call a packet, the "
        "payload format called as its own type, the reorder buffer's in-order case and an FU-A fragment's taken "
        "inline, the access unit's pieces in buffers of its own, SPS not parsed again when repeated, RBSP codes "
        "read a byte at a time), 1631 → 1007 instructions a packet (callgrind): 1.9× and 1.6×;",
        "- the Annex-B output written 1024 pieces a writev, not a frame a writev: 6450 → 370 calls;",
        "- no MADV_POPULATE_READ ahead of the walk (each 4 KiB page mapped apart), faults instead: 3–4 ms;",
        "- libpcap and libsrtp2 opened on first use, not linked: 2.2 ms less at start-up;",
        "- the walk on a thread of its own, ahead of the receiver: 2.1–2.5× → 1.7–1.9× the floor in A/B runs (1080p); with each packet’s headers prefetched before its turn on the receiving side, 1.4–1.7×.",
        "",
        "## Live UDP over loopback, from `scripts/benchmarks/blast.c` (sendmmsg) in another process",
        "",
        "| rate asked | reached (pkt/s) | receiver | frames kept | kernel drops | CPU µs/packet | × floor | × writing floor | user µs/packet |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    floors = {(row["rate"], row["receiver"]): row["cpu_us_per_packet"] for row in results["live"]
              if row["receiver"].startswith("floor")}
    names = {"rtprecv-null": "rtprecv → /dev/null", "floor-write": "floor, writing"}
    for row in results["live"]:
        kept = "—" if row["frames_kept"] is None else f"{row['frames_kept']}/{row['frames_sent']}"
        if row["receiver"].startswith("floor"):
            kept = f"{row['packets_received']}/{row['packets_sent']} packets"
        drops = "—" if row["kernel_drops"] is None else str(row["kernel_drops"])
        cpu = row["cpu_us_per_packet"]
        writes = row["receiver"] not in ("floor", "rtprecv-null")
        against_writing = f"{cpu / floors[(row['rate'], 'floor-write')]:.2f}" if writes else "—"
        lines.append(f"| {row['rate']} | {row['achieved_pps']:.0f} | {names.get(row['receiver'], row['receiver'])} | {kept} | "
                     f"{drops} | {cpu:.2f} | {cpu / floors[(row['rate'], 'floor')]:.2f} | {against_writing} | "
                     f"{row['user_us_per_packet']:.2f} |")
    lines += [
        "",
        "Receivers: `rtprecv --port P --out FILE` (and `--out /dev/null`, the receive path's own cost); "
        "`ffmpeg -i x.sdp -c copy -f h264`; `gst-launch-1.0 udpsrc ! rtpjitterbuffer ! rtph264depay ! filesink`. "
        "Floor: a bare recvmmsg loop that only counts; writing floor: the same loop copying each RTP payload into a "
        "frame and writing the frame at its marker bit, with no depacketization (`scripts/benchmarks/recvloop.c`). "
        "CPU is the receiver's user + system time for the whole run, divided by the packets sent; the medians of "
        f"{RUNS} run(s) taken in turns. Frames kept and kernel drops are the worst run's.",
        "Target: rtprecv keeps every frame at the blaster's maximum, with CPU ≤ 1.3× the floor and user time ≤ 0.5 µs per packet.",
        "Writing a file is kernel time that the bare floor does not spend; the writing floor is the fair measure for the rows that write.",
        "",
    ]
    single = {row["receiver"]: row["cpu_us_per_packet"] for row in results["streams"] if row["streams"] == 1}
    ffmpeg = {row["streams"]: row["cpu_us_per_packet"] for row in results["streams"] if row["receiver"] == "ffmpeg"}
    lines += [
        "## Many streams: 1, 10 and 100 at once, each about 5 Mbit/s (400 packets/s), live over loopback",
        "",
        "| streams | receiver | streams with every frame | fewest frames of a stream | kernel drops | CPU µs/packet | × its 1-stream figure | × ffmpeg |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in results["streams"]:
        cpu = row["cpu_us_per_packet"]
        against = f"{cpu / ffmpeg[row['streams']]:.2f}" if row["streams"] in ffmpeg else "—"
        drops = "—" if row["kernel_drops"] is None else str(row["kernel_drops"])
        lines.append(f"| {row['streams']} | {row['receiver']} | {row['streams_whole']}/{row['streams']} | "
                     f"{row['frames_kept_min']}/{row['frames_sent']} | {drops} | {cpu:.2f} | "
                     f"{cpu / single[row['receiver']]:.2f} | {against} |")
    lines += [
        "",
        "One blaster sends every stream, packet by packet in turn, each to a port of its own and with an SSRC of its "
        "own (`blast … streams=N`). Receivers: one `rtprecv --port LOW-HIGH --out 'dir/{port}.h264'`; one "
        "`ffmpeg -i port.sdp -c copy -f h264` a stream, as FFmpeg takes one session a process, each on an even port "
        "since it binds the next for RTCP. CPU is every receiver "
        "thread's, from the blast's start to 0.3 s after its end (start-up and closing left out), divided by the "
        "packets sent.",
        "Target: rtprecv's CPU per packet within 1.2× of its 1-stream figure, and every stream whole while the "
        "kernel drops nothing.",
        "",
    ]
    lines += report_recording(results)
    lines += report_report(results)
    lines += report_cameras(results)
    lines += [
        "## Latency: arrival of a frame's last packet to the end of its write (live, 20k packets/s)",
        "",
        "| receiver | input | p50 µs | p99 µs | max µs | frames |",
        "|---|---|---|---|---|---|",
    ]
    for row in results["latency"]:
        lines.append(f"| {names.get(row['receiver'], row['receiver'])} | {row['mode']} | {row['p50']:.0f} | {row['p99']:.0f} | "
                     f"{row['max']:.0f} | {row['frames']} |")
    lines += ["", f"Medians of {RUNS} run(s)' percentiles. Target: p99 ≤ 100 µs in order. Reordered, an access unit "
              "waits for its missing packet. The writing floor shows what write(2) of a frame costs by itself.", ""]
    d = results["decode"]
    lines += [
        f"## Decode: {d['frames']} frames of 1080p",
        "",
        "| command | seconds | ratio |",
        "|---|---|---|",
        f"| `ffmpeg -i X.h264 -f rawvideo -y /dev/null` | {d['ffmpeg']:.3f} | 1 |",
        f"| `rtprecv --pcap X --decode --yuv /dev/null` | {d['rtprecv']:.3f} | {d['rtprecv'] / d['ffmpeg']:.3f} |",
        "",
        "Target ratio ≤ 1.05.",
        "",
        "## Memory: peak private memory of `rtprecv --pcap X --out /dev/null`",
        "",
        "| stream length | peak RssAnon (MB) | peak RSS (MB), for reference |",
        "|---|---|---|",
    ]
    for row in results["memory"]:
        lines.append(f"| {row['repeats']}× ({row['repeats'] * 30} frames) | {row['peak_anon_kib'] / 1024:.1f} | "
                     f"{row['peak_rss_kib'] / 1024:.1f} |")
    lines += ["", "Target: flat, and ≤ 32 MB without the decoder. rtprecv maps the capture read-only: its pages are "
              "the page cache's, shared and reclaimable, and count in RSS as they are walked, though the process "
              "holds none of them. RssAnon, the anonymous pages in `/proc/PID/status`, is the memory rtprecv holds "
              "(sampled as often as the benchmark can read it).", ""]
    return "\n".join(lines)


# MARK: Many cameras

def capture_seconds(path):
    """From a classic pcap's first record to its last."""
    data = open(path, "rb").read()
    times, offset = [], 24
    while offset + 16 <= len(data):
        sec, usec, caplen, _ = struct.unpack("<IIII", data[offset:offset + 16])
        times.append(sec + usec / 1e6)
        offset += 16 + caplen
    return times[-1] - times[0]


def cameras_run(kind, cameras, port, capture, frames, batch_ms=None):
    """`cameras` RTSP cameras (scripts/fake-camera, each serving `capture` once over TCP from PLAY on):
    rtprecv as one process with a config naming them all, or one `ffmpeg -rtsp_transport tcp -i URL
    -c copy` a camera, both writing MP4. CPU is counted from 2 s after the start (every session set up)
    to 1 s before the cameras' end; frames kept are each camera's file's."""
    directory = os.path.join(WORK, f"cameras-{kind}-{batch_ms}")
    subprocess.run(["rm", "-rf", directory])
    os.makedirs(directory)
    servers = [subprocess.Popen([os.path.join(ROOT, "scripts", "fake-camera"), "--port", str(port + k), "--pcap", capture,
                                 "--sdp", os.path.join(ROOT, "captures", "ffmpeg-mode0.sdp")], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL) for k in range(cameras)]
    for s in servers:
        s.stdout.readline()
    urls = [f"rtsp://127.0.0.1:{port + k}/cam" for k in range(cameras)]
    if kind == "rtprecv":
        config = os.path.join(directory, "cameras.yml")
        with open(config, "w") as f:
            f.write(f"defaults:\n  mp4: {directory}/{{source}}.mp4\n  rtsp-transport: tcp\n  quiet: true\n"
                    + (f"  batch-ms: {batch_ms}\n" if batch_ms is not None else "") + "sources:\n")
            f.writelines(f"  - {{name: cam{k}, rtsp: '{url}'}}\n" for k, url in enumerate(urls))
        receivers = [subprocess.Popen([BIN, "--config", config], stderr=subprocess.PIPE)]
    else:
        receivers = [subprocess.Popen(["ffmpeg", "-v", "error", "-y", "-rtsp_transport", "tcp", "-i", url, "-c", "copy", "-f", "mp4",
                                       os.path.join(directory, f"cam{k}.mp4")], stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                     for k, url in enumerate(urls)]
    seconds = capture_seconds(capture)
    time.sleep(2)
    pids = [r.pid for r in receivers]
    before, began = cpu_ns(pids), time.monotonic()
    time.sleep(seconds - 3)
    cpu, wall = cpu_ns(pids) - before, time.monotonic() - began
    time.sleep(3)
    for r in receivers:
        r.send_signal(signal.SIGINT)
    # ffmpeg waits for the reply to its TEARDOWN, which the fake camera may not give: the cameras go
    # once the receivers were told to stop (rtprecv does not wait for it either).
    time.sleep(0.5)
    for s in servers:
        s.terminate()
    for r in receivers + servers:
        try:
            r.wait(timeout=30)
        except subprocess.TimeoutExpired:
            r.kill()
            r.wait()
    kept = [packets_in(os.path.join(directory, f"cam{k}.mp4")) for k in range(cameras)]
    return {"cameras": cameras, "receiver": kind + (f" --batch-ms {batch_ms}" if batch_ms is not None else ""), "cpu_percent_per_camera": 100 * cpu / 1e9 / wall / cameras,
            "frames_sent": frames, "frames_kept_min": min(kept), "cameras_whole": sum(1 for k in kept if k == frames)}


def bench_cameras(results):
    """10 and 50 RTSP cameras (320x240, 30 frames/s, 0.6 Mbit/s, over TCP): rtprecv's one process with a
    config against an ffmpeg -c copy process a camera, as an NVR operator runs them."""
    counts = [5] if SMOKE else [10, 50]
    repeats = 3 if SMOKE else 6
    capture = repeat_capture(os.path.join(WORK, f"mode0-x{repeats}.pcap"), repeats,
                             source=os.path.join(ROOT, "captures", "ffmpeg-mode0.pcap"))
    port = 30000 + os.getpid() % 10000
    rows = []
    for cameras in counts:
        for kind, batch_ms in [("rtprecv", None), ("rtprecv", 0), ("ffmpeg", None)]:
            rows.append(cameras_run(kind, cameras, port, capture, frames=120 * repeats, batch_ms=batch_ms))
            log(f"cameras {cameras} {kind}: {rows[-1]}")
    results["cameras"] = rows


def report_cameras(results):
    """The many-cameras section of BENCHMARKS.md."""
    lines = ["## RTSP cameras in one process: CPU a camera (one process's config against an ffmpeg a camera)", "",
             "| cameras | receiver | CPU % a camera | × ffmpeg | cameras with every frame | fewest frames kept |", "|---|---|---|---|---|---|"]
    rows = results["cameras"]
    for r in rows:
        ffmpeg = next(f for f in rows if f["cameras"] == r["cameras"] and f["receiver"] == "ffmpeg")
        ratio = r["cpu_percent_per_camera"] / ffmpeg["cpu_percent_per_camera"] if ffmpeg["cpu_percent_per_camera"] else 0
        lines.append(f"| {r['cameras']} | {r['receiver']} | {r['cpu_percent_per_camera']:.2f} | {ratio:.2f} | "
                     f"{r['cameras_whole']}/{r['cameras']} | {r['frames_kept_min']}/{r['frames_sent']} |")
    lines += ["", "Target: at most 0.5× ffmpeg's CPU a camera, every frame kept. Cameras: scripts/fake-camera serving "
              "captures/ffmpeg-mode0.pcap repeated (320x240, 30 frames/s) over RTSP interleaved in TCP; both write MP4. "
              "rtprecv runs each source on a thread of its own; a wake-up, not a packet, is most of what a camera costs "
              "either receiver. A config's camera over TCP into files gathers its input for 100 ms a turn by default "
              "(its frames reach the files up to 100 ms later); `--batch-ms 0` takes each packet as it comes.", ""]
    return lines


def main():
    build_tools()
    results = {}
    sections = {"replay": bench_replay, "webrtc_codecs": bench_webrtc_codecs, "per_packet": bench_per_packet,
                "decode": bench_decode, "memory": bench_memory, "live": bench_live, "streams": bench_streams,
                "recording": bench_recording, "report": bench_report, "cameras": bench_cameras}
    if ONLY:
        # One section, printed and not written to BENCHMARKS.md, which holds the whole suite's run.
        if ONLY not in sections:
            raise SystemExit(f"--only {ONLY}: the sections are {', '.join(sections)}")
        sections[ONLY](results)
        print(json.dumps(results[ONLY], indent=1))
        return
    for bench in sections.values():
        bench(results)
    text = report(results)
    target = os.path.join(WORK, "BENCHMARKS-smoke.md") if SMOKE else os.path.join(ROOT, "BENCHMARKS.md")
    with open(target, "w") as f:
        f.write(text)
    json.dump(results, open(os.path.join(WORK, "results.json"), "w"), indent=1)
    print(text)


main()
