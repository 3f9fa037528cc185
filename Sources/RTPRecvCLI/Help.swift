public enum Help {
    public static let version = "rtprecv 0.1.0"

    public static let usage = "rtprecv (--pcap FILE | --port N | rtsp://HOST/PATH) [--sdp FILE] [--out FILE|-] [options]"

    public static let text = """
    OVERVIEW: Receive H.264, H.265, VP8, VP9 or AV1 video and its audio carried over RTP (RFC 3550,
    RFC 6184, RFC 7798, RFC 7741, RFC 9628, AOMedia's AV1 payload format) and write them out.

    rtprecv reads RTP packets from a UDP port or from a pcap/pcapng capture, restores their
    order, reassembles NAL units and access units in every RFC 6184 packetization mode (single
    NAL unit, non-interleaved, and interleaved with STAP-B, MTAP16/24 and FU-B reordered by DON)
    and every RFC 7798 payload (single NAL units, AP, FU and PACI, with DONL/DOND reordered by DON
    when the SDP's sprop-max-don-diff or sprop-depack-buf-nalus says so), and writes every
    complete access unit as an Annex-B elementary stream. H.265 output starts at an IRAP picture;
    the RASL pictures of a CRA it starts at are dropped and counted. A frame with any
    missing piece of its picture is never written; every intact one is, bit-exact; one that lost
    only parameter sets or SEI before its slices is repaired from cached parameter sets. The statistics
    at the end, and the frame ledger (--frames-json), account for every packet and frame.

    VP8 (RFC 7741) is taken as WebRTC stacks send it: every payload descriptor extension (PictureID,
    TL0PICIDX, TID/Y, KEYIDX), frames from their partition-0 start to the marker, and written as IVF.
    A loss costs only the frames that may refer to what was lost: a frame marked non-reference (N)
    only itself; with temporal layers, the frames of its layer and above until a layer-sync frame
    (Y) or a keyframe, gaps in PictureID and TL0PICIDX showing frames lost whole; without layers,
    every frame to the next keyframe. The ledger says which frames were written with damaged
    references. VP9 (RFC 9628) likewise, in flexible mode by the references P_DIFF names, in
    non-flexible mode by TID, U and TL0PICIDX; a picture's spatial layers are written as one
    superframe (up to --spatial-layer). AV1 temporal units are joined from their OBU
    elements and fragments into the low-overhead bitstream, the last sequence header put in front
    of a keyframe that lacks it; any loss damages every unit to the next keyframe.

    Beside the video it takes one audio stream: AAC (RFC 3640 mpeg4-generic and RFC 6416
    MP4A-LATM, which need the SDP), G.711 (PCMU, PCMA), G.722, MPEG audio (RFC 2250 MPA) and
    Opus (RFC 7587). Static payload types (0, 8, 9, 14) are taken without an SDP.

    It pulls from RTSP cameras and servers (rtsp://…, over UDP or TCP), decrypts SRTP
    (--srtp-key, or the SDP's a=crypto), talks back over RTCP live (receiver reports, NACK with
    RTX, keyframe requests), and publishes to an RTMP server (--rtmp).

    USAGE: rtprecv --port N [--out FILE|-] [options]        receive live until Ctrl-C
           rtprecv --pcap FILE [--out FILE|-] [options]     replay a capture
           rtprecv --pcap FILE --list                       list the RTP streams in a capture
           rtprecv rtsp://[USER@]HOST[:PORT]/PATH [options] pull from an RTSP camera or server
           rtprecv --config FILE [--check]                  record the sources a YAML file lists
           rtprecv fleet status --config FILE               a fleet's members and who records what

    CONFIG FILE (--config FILE): the sources to record, each named, in YAML:
        metrics: 9464                   # the process's endpoint: every source's streams
        defaults:                       # every source's settings, unless it says otherwise
          mp4: rec/{source}-{start}.mp4
          segment-seconds: 600
        sources:
          - name: door                  # letters, digits, - _ . ({source} in paths)
            rtsp: rtsp://10.0.0.5/stream1
            reconnect: true
            user: admin
            password-env: DOOR_PASSWORD # or password-file: FILE (its first line)
          - name: call
            sdp: call.sdp               # or port: N or LOW-HIGH, with codec: ...
            srtp-key-file: call.key     # --srtp-key values, one a line
      A setting is an option's name without its dashes, with its value (a list repeats it);
      an on/off option takes true or false. Passwords and keys come from the environment or
      files, never the config. Every source runs in this one process beside the others, as it
      would alone, its messages beginning with [NAME]; one that fails stops alone. Errors
      name the file, line and column (exit status 64). SIGHUP reads the config again: sources
      added start, removed ones stop, changed ones restart, and the others are not touched.
      --check                 Check the config and list each source, what it receives and
                              writes; run nothing. Beside --config only --check, -q and -v
                              are taken (-q and -v for every source).
      A FLEET: with nats: in the config, each process sharing it records its share of the
      sources, claimed in a NATS JetStream key-value bucket, and a dead member's are taken by
      the others after ttl-seconds. Events (claims, starts, stops, each segment) go to the
      stream RTPRECV_EVENTS, subjects rtprecv.events.SOURCE. {member} in a path is its name.
      SIGHUP applies new servers and credentials at once; the rest of nats: at a restart.
        nats:
          servers: [nats://10.0.0.1:4222, nats://10.0.0.2:4222, nats://10.0.0.3:4222]
          member: rec-a               # default: the host's name
          ttl-seconds: 5              # 1 to 300
          user: rtprecv               # with password-env: or password-file:, or creds-file:
          password-env: NATS_PASSWORD # also: tls-ca-file, bucket, events, replicas

    RTSP (an rtsp:// URL instead of --port or --pcap):
      The client sends OPTIONS, DESCRIBE, a SETUP for the first video line of a codec above and
      the first audio line rtprecv takes, PLAY, keep-alives at half the session's timeout
      (GET_PARAMETER when the server lists it, else OPTIONS), and TEARDOWN when it stops, on
      Ctrl-C too. The server's SDP stands in for --sdp; what the session worked around is named
      in the summary.
      --rtsp-transport MODE   auto (default): UDP first, then TCP: in the same session when the
                              server refuses UDP (461), in a fresh one when it answers with
                              another transport or sends nothing within 2 s of PLAY; udp; tcp (interleaved in the RTSP
                              connection, RFC 2326 §10.12, RTCP back in its channel); or
                              multicast (the group and ports the server names, joined).
      --user NAME             The login (else the URL's). Basic and Digest (MD5, MD5-sess,
      --password TEXT         SHA-256) are answered. The password comes from --password, else
                              the URL (percent-encoded), else the RTSP_PASSWORD environment
                              variable, which keeps it out of the process list. It is never
                              printed, not even with -v.
      --reconnect             When the connection is lost, or no media comes for --timeout (10 s
                              by default), set the session up again, after 1 s, 2 s, 4 s … up to
                              30 s (±25%). The outputs go on in the same files from the next
                              keyframe; the summary counts reconnects and the time without media.

    LIVE INPUT (without --pcap):
      --port N                UDP port to listen on (default: from --sdp, else 5004; 0: any free).
                              LOW-HIGH listens on every port of the range (at most 1024) and
                              records every stream on them apart (--all-streams); in a replay,
                              takes the datagrams to those ports.
                              With --sdp, every media line's port and its RTCP port (a=rtcp, or
                              the port + 1; none with a=rtcp-mux) are listened on at once.
      --audio-port N          Without an SDP: also listen here for static-payload-type audio
                              (PCMU, PCMA, G.722, MPA), and on both ports + 1 for RTCP.
      --bind ADDR             Local address (default [::], which takes IPv4 and IPv6). A multicast
                              group, here or in the SDP's c= line, is joined.
      --iface NAME            Interface for the multicast join (default: the kernel's choice),
                              also given as ADDR%NAME; a link-local IPv6 address (fe80::/10,
                              ff02::/16) needs one.
      --source ADDR           Drop, and count, datagrams from any other sender. With a multicast
                              group the join is source-specific (SSM, which 232.0.0.0/8 and
                              ff3x:: need), so the kernel drops the others. The SDP's
                              a=source-filter: incl does the same.
      --metrics [ADDR:]PORT   Serve the statistics over HTTP (default address 127.0.0.1): GET
                              /metrics in Prometheus's text format, one label set per stream
                              (ssrc, pt, media, port), the same counts as --stats-json, with
                              its bytes written and segments; GET /healthz
                              200 while every RTP port is receiving (a packet within --timeout,
                              else 5 s), 503 naming the silent ones; GET / a page for people
                              (it refreshes itself): every stream, its state, the last minute's
                              bitrate and loss, and the picture of its last keyframe
                              (/snapshot/SSRC.jpg, decoded only when asked for, at most once a
                              second). At most 8 clients, the oldest giving way; each has 2 s to
                              ask and 5 s to take its answer.
      --rcvbuf BYTES          Socket receive buffer to ask for (default 8388608); the granted
                              size is reported, with a warning when it is less.
      --duration SECONDS      Stop after this long.
      --frames N              Stop after writing N frames (also with --pcap).
      --rtcp-to ADDR:PORT     Where RTCP goes (default: where the sender reports come from, else
                              the RTP source's port + 1, or its port with a=rtcp-mux). rtprecv
                              sends receiver reports (RFC 3550) with a CNAME from its RTCP port
                              (the RTP port with rtcp-mux), and BYE at the end.
      --request-keyframe      Ask for a keyframe (PLI, RFC 4585) while the output waits for one, at
                              the start or after a damaged reference, every 200 ms until it comes;
                              on by itself when the SDP offers a=rtcp-fb:PT nack pli, and FIR
                              (RFC 5104) after 3 PLIs when it offers ccm fir.
      --nack                  Ask for lost packets again (generic NACK, RFC 4585) as soon as a gap
                              shows, every round trip (20 ms until one is measured), three times
                              at most, while they could still come within --latency-ms; on by
                              itself when the SDP offers nack. The round trip comes from XR
                              (RFC 3611): a sender that echoes the reference time rtprecv sends.
      --rtx-payload-type N    Retransmissions (RTX, RFC 4588) come on payload type N, for the
                              video's; the SDP's rtpmap rtx with apt= says so by itself. RTX is
                              unwrapped into its stream, live and in captures.
      --no-rtcp               Send nothing back.
      --timeout SECONDS       Say so when no packet arrived for this long.
      --exit-on-timeout       ... and then stop.
                              Ctrl-C (SIGINT) or SIGTERM stops cleanly: waiting packets are
                              flushed, every complete frame written, the statistics printed.
                              A second Ctrl-C exits at once.

    CAPTURE INPUT:
      --pcap FILE             Capture to replay (pcap or pcapng, told apart by content). '-'
                              reads standard input as it comes, as from tcpdump -U -w -.
                              Ctrl-C stops cleanly, as live.
                              Link types: Ethernet (VLAN), Linux SLL/SLL2, loopback, raw IP.
      --list                  List the RTP streams in the capture and exit: per SSRC, the
                              packets, the losses and the codec of each payload type it carried
                              (H.264 with its resolution and NAL unit types; VP8 and VP9 with
                              their resolution, layers and keyframes; AV1 with its resolution;
                              others by name and packet duration; comfort noise; telephone
                              events with their digits). With --sdp, dynamic payload types are
                              named from its rtpmap lines.
      --tcp-framing MODE      RTP carried in the capture's TCP streams, each connection put back in
                              order (retransmissions, overlaps, reordering; a segment the capture
                              missed costs only the packets it held): rtsp (default: RTSP's
                              interleaved $ frames, RFC 2326 §10.12) or rfc4571 (a 16-bit length
                              before each packet).
      Without --sdp, a replay and --list take the session description from the capture's own
      signalling when it holds one: an RTSP DESCRIBE reply (its lines mapped to ports by the
      SETUP replies) or SIP INVITE/200 OK/ACK bodies, within its first 16 MiB.

    BOTH:
      --sdp FILE              Session description: port, address, source filter, payload type,
                              sprop-parameter-sets (SPS/PPS sent only out of band), and for
                              packetization-mode=2 the de-interleaving parameters
                              (sprop-interleaving-depth, -deint-buf-req, -init-buf-time,
                              -max-don-diff). Where the SDP and the packets disagree on the
                              mode, the packets win, with a warning.
                              Given more than once: a session an SDP, each recorded apart, as
                              that SDP alone would be (its video and audio, one FLV), into files
                              named from the output paths with {sdp} (the SDP file's name
                              without .sdp), such as --flv 'rec/{sdp}.flv'. Datagrams go to the
                              session whose media lines name their port (RTP or RTCP); a port
                              belongs to one session. Live, each session sends RTCP of its own
                              from its RTCP port, and only --source filters senders.
                              --stats-json without {sdp} gets every
                              session's statistics in one file ("sessions").
      --sdp-dir DIR           Every *.sdp file in DIR, as --sdp given for each.

    STREAM SELECTION (default: the first stream that proves to carry one of the codecs above):
      --ssrc N                Only this SSRC (decimal or 0x-hex).
      --payload-type N        Only this RTP payload type (default: from --sdp, else any of 35-127).
      --codec NAME            h264, h265, vp8, vp9 or av1: the codec of payload types the SDP
                              does not name (an SDP's a=rtpmap H264/90000, H265/90000,
                              VP8/90000, VP9/90000 or AV1/90000 decides; without either, each
                              stream is tried as each until one proves itself: VP8 and VP9 by a
                              keyframe header or PictureIDs that follow on, AV1 by a sequence
                              header).
      --dependency-descriptor ID
                              AV1: the RFC 8285 header extension ID (1-255) of the dependency
                              descriptor, where no SDP's a=extmap names it: which units a loss
                              damages is read from it (a lost frame nothing refers to costs only
                              itself) rather than taken as all to the next keyframe.
      --port N                With --pcap: only datagrams to this UDP port (default: from
                              --sdp, else any).
      --max-streams N         Candidate streams followed at once (default 16, or one a port of a
                              --port range); with --all-streams, the streams recorded.
      --all-streams           Record every video stream (each SSRC on a dynamic payload type)
                              of a capture or of the UDP ports listened on, each apart, with its
                              own reordering, repair and ledger, into files named from the output
                              paths with {ssrc} (8 hex digits), {pt}, {port} (the destination
                              port) and {src} (the sender's address) filled in, such as
                              --out 'rec/{port}-{ssrc}.h264'. A path with any of them implies
                              it. {codec} (h264, h265, vp8, vp9, av1) may name the file too:
                              where neither the SDP nor --codec says, the file keeps "{codec}"
                              in its name until its stream proves the codec, and is renamed
                              then. --stats-json without them gets every stream's statistics in
                              one file ("all_streams"). A stream that proves to be no video
                              leaves no files. A stream whose outputs fail (cannot be opened,
                              a full disk) is stopped and said, the others go on, and rtprecv
                              exits 1 at the end. Live, each stream sends RTCP of its own
                              (reports, NACK, PLI), from the port after its own where that is
                              listened on, else from its own. With --audio
                              or --wav, each audio stream (a static payload type, or the SDP's
                              audio line) is recorded apart into them; an FLV of video and audio
                              comes with sessions (--sdp given more than once, --sdp-dir). SRTP
                              (every stream tried with every key) and RTSP pulls take it too.
      --audio-ssrc N          The audio stream: only this SSRC.
      --audio-payload-type N  The audio stream: only this payload type (default: the SDP's audio
                              line, else 0 PCMU, 8 PCMA, 9 G.722 or 14 MPA).
      --no-audio              Leave audio out: count it as another stream.

    OUTPUT:
      -o, --out FILE          The video's elementary stream; '-' for standard output. H.264 and
                              H.265 as Annex-B with 4-byte start codes, VP8, VP9 and AV1 as IVF
                              (times on the 90 kHz clock, from 0; the frame count filled in at
                              the end when FILE is a regular file). Output starts at the first
                              keyframe (IDR or recovery point), with its SPS and PPS put in
                              front when the stream did not carry them.
      --wait-keyframe         After a lost reference picture, also drop frames until the next
                              keyframe, so that nothing written refers to a lost picture. A lost
                              non-reference picture (nal_ref_idc 0, such as most B-frames) costs
                              only itself; frame_num tells when whole pictures went with lost
                              packets.
      --spatial-layer N       VP9 with spatial layers: write the layers up to N (0, the base,
                              to 7) instead of every one; a picture of several layers is written
                              as one superframe, and the size reported is its largest layer's.
      --segment-seconds N     Cut --out, --flv and the recordings into files at the first keyframe
                              after every N seconds (of the stream's time), named from their
                              paths with {n} (0, 1, …, on past an earlier run's numbers) and
                              {start} (UTC, as 20261201T154200Z): each starts with the parameter
                              sets and a keyframe, an FLV with its header, onMetaData and
                              sequence headers, a recording with its own, so each plays by
                              itself (an H.265 one cut at a CRA, without the RASL pictures
                              after it).
      --segment-wallclock     End segments at the first keyframe past each multiple of N seconds
                              of UTC (…:00, …:10 with N = 10; in a capture, of its packet times),
                              so the files of many streams and processes line up.
                              Live, SIGHUP (as log-rotation tools send it) reopens --out at its
                              path from the next keyframe, and begins a whole new --flv or
                              recording there if the last one was moved away (with segments:
                              the next segment of each), and --frames-json at once; other
                              outputs stay open.
      --stats-json FILE       Write the statistics as JSON ('-' for standard output).
      --frames-json FILE      The frame ledger: one JSON object per line for every access unit
                              from the first keyframe on, in decoding order, written or not:
                              ssrc, ts (RTP), seq_first, seq_last, packets, bytes, keyframe,
                              status (written, repaired, dropped), reason (missing_packets,
                              missing_fragment_start, aggregation_overrun, don_gap,
                              over_max_frame_bytes, incomplete_at_end, unfinished_fragment,
                              no_parameter_sets, waiting_for_keyframe), missing_packets,
                              retransmitted_packets (repaired by RTX), refs_intact, pts_ms; a
                              telephone event beside the audio (RFC 4733) has a line of its own:
                              media "telephone-event", event, volume, duration_ms, ended.
                              '-' for standard output; live, line by line.
      --report FILE.html      A page to look at, one file that opens offline: per stream a
                              summary, bitrate, loss, jitter and frame sizes (audio: level) on
                              one time axis, every dropped or repaired frame of the ledger
                              marked with its reason, and pictures of keyframes (at most 16,
                              one every 2 s or more), decoded through libavcodec. Written at
                              the end of the run; with --all-streams or several SDPs, one page
                              takes every stream, unless its path names each ({ssrc}, {sdp}).

    AUDIO OUTPUT:
      --audio FILE            The audio stream's frames, bit-exact, in the file its codec plays
                              from: AAC as ADTS (.aac), MPEG audio as .mp3, G.711 as WAV with
                              the A-law or mu-law format tag. '-' for standard output. A lost
                              frame leaves a gap, counted in the statistics, never filled in; a
                              silence sent as comfort noise is kept as G.711 silence. G.722 and
                              Opus have no such file here.
      --wav FILE              The audio stream decoded (libavcodec) into 16-bit PCM WAV: every
                              codec above, G.722 and Opus too. A lost G.711 or AAC frame becomes
                              silence of its exact length, so what follows stays in time; other
                              codecs' losses leave gaps. A silence sent as comfort noise
                              (RFC 3389) is noise at the sender's level. All are counted. '-'
                              streams it.

    RECORDINGS (libavformat's muxers; each beside every other output):
      --mp4 FILE              Fragmented MP4: a header without an index, then the frames in
                              fragments, one at every keyframe and at least every --fragment-ms,
                              each handed to the kernel whole, so a file cut at any moment (a
                              crash, kill -9) plays up to its last whole fragment. H.264
                              ('avc1'), H.265 ('hvc1', as browsers take it), VP9 and AV1. The
                              track is declared from the first keyframe; frames before it are
                              left out. A keyframe of another picture size or codec begins a
                              new file: the next segment, or the next part (cam.1.mp4).
      --mkv FILE              Matroska, in clusters of at most --fragment-ms: every codec
                              rtprecv takes, VP8 included. Readable when cut, as MP4 is. A
                              FILE named .webm holding VP8, VP9, AV1 and Opus alone is WebM,
                              which browsers play.
      --ts FILE               MPEG-TS (H.264 and H.265), readable from any point.
      --no-audio-transcode    Leave G.711 and G.722 out of --mp4 and --ts, which cannot carry
                              them, rather than encode them to AAC (4 bits a sample: 32 kbit/s
                              at 8 kHz, through libavcodec) on the session timeline, in sync
                              with the video.
      --fragment-ms N         Longest fragment (MP4) or cluster (Matroska) in milliseconds, 100 to
                              60000 (default 1000): the most a crash may cost the file.
      --faststart             Once the MP4 (not segmented) is finished, write it again with its
                              index in front and no fragments, for editors and progressive
                              download; until then it is fragmented, and a crash leaves that.
      --fsync POLICY          What survives a power cut, not only a crash: 'segment' (default)
                              makes each finished file and its name durable (fsync), 'fragment'
                              also what was handed over, once per --fragment-ms of media, and
                              'none' leaves it to the kernel.
      --segment-index FILE    One JSON line per recording file closed, appended (earlier runs'
                              lines stay): path, container, start_utc, end_utc, start_ms and
                              end_ms on the session timeline, duration_ms, frames, keyframes,
                              audio_frames, bytes, codecs, closed_cleanly; and one with
                              deleted_utc and reason for each file retention removes. A segment
                              open when a process died is read back and listed at the next
                              start, closed_cleanly false.
      --retain-hours N        With segments: remove the oldest recording segments (this run's and
      --retain-size SIZE      earlier ones' of the same name) once they are older than N hours,
                              or while a directory's segments together are larger than SIZE
                              (500M, 20G: powers of 1024). The segment being written, and at the
                              end the last one, always stay; each removal is said and counted.
      Times are the stream's presentation times from 0, decode times derived from its reorder
      depth (B-frames kept in order); a sender's timestamp jump is stepped over, and ends the
      segment, with segments. --segment-seconds and SIGHUP cut recordings as they cut --flv.
      The session's audio goes in too, as it came: AAC, MPEG audio and Opus in all three, G.711
      and G.722 in Matroska; a session of audio alone starts at its first frame. A codec a
      container does not carry is said once and left out of it. '-' streams any of them.

    FLV OUTPUT:
      --flv FILE              FLV with onMetaData, video sequence headers (again when they change)
                              and one tag per frame, timed by decode time. Duration and size are
                              rewritten at the end when FILE is a regular file; '-' streams it.
                              After a lost reference picture, frames wait for the next keyframe,
                              as players smear until then. A frame over 16 MiB, more than a tag
                              holds, is left out (with a warning), and so are those after it.
                              FLV carries H.264 and H.265: VP8, VP9 and AV1 frames are left out
                              of it (said at start-up when the SDP or --codec names the codec)
                              and go to the other outputs.
      --flv-keep-after-loss   Write the frames between a loss and the next keyframe anyway.
                              The session's audio goes in too: AAC (its sequence header holds
                              the AudioSpecificConfig as sent), MP3 and G.711; Opus and G.722
                              have no FLV code and are left out, with a warning. Both tracks
                              are timed on one timeline: from arrival, then from the senders'
                              RTCP reports, corrected without a time ever going back.
      --flv-hevc-legacy       H.265 as codec id 12 in AVC's tag layout, which some servers and
                              players expect, instead of Enhanced RTMP's ExVideoTagHeader with
                              FourCC 'hvc1' (SequenceStart, CodedFrames, CodedFramesX). Either
                              way VPS, SPS and PPS go into the sequence header. Also for --rtmp.
      --interleave-ms N       How long one FLV track's tags wait for the other's, from their
                              arrival (default 1000): a silent track holds the other no longer.
                              A recording's header waits as long for the session's audio.

    DECODED OUTPUT (libavcodec; any of these turns decoding on; one pass feeds every output):
      --decode                Decode, for the statistics alone.
      --yuv FILE              Raw planes, frame after frame, in presentation order. Each frame
                              keeps its own size when the stream changes resolution.
      --y4m FILE              YUV4MPEG2 with size, rate (from the SPS VUI, else the RTP
                              timestamps), aspect and chroma in its header. Frames are scaled to
                              the first frame's size.
      --frame-md5 FILE        One MD5 per written frame, in the form of ffmpeg's framemd5.
      --pix-fmt NAME          Output pixel format (default yuv420p): any libswscale format, such as
                              nv12, yuv444p, yuv420p10le, rgb24, gray. Converted only when needed.
      --scale WxH             Scale every frame to this size.
      --threads N             Decoder threads (default 0: as many as libavcodec sees fit).
      --skip-corrupt          Drop frames the decoder flags as damaged, and frames whose reference
                              pictures were lost. Without it every decoded frame is written.
      '-' writes any of these to standard output: rtprecv --port 5004 --y4m - | ffplay -

    SENDERS' QUIRKS (worked around, each said once as it is first seen):
      - RTP timestamps that never advance (FFmpeg -c copy from a raw .h264, some cameras): frames
        are timed from the SPS VUI, else from arrival, in display order.
      - An STAP-A/STAP-B/MTAP unit whose size runs past its packet: that unit is lost, its frame
        dropped; the units before it (often a new SPS and PPS) are kept.
      - MTAP unit sizes that count DOND and the TS offset: read that way when only that fits.
      - An SDP that understates sprop-interleaving-depth: the depth grows to what units show.

    RTMP (publish to a server, through libavformat's RTMP client):
      --rtmp URL              Publish the tags --flv would write, live: rtmp://server[:port]/app/key
                              (rtmps://, rtmpt:// where libavformat has them). Nothing goes before
                              the first keyframe; then the sequence headers, then the keyframe, with
                              times from 0. It combines with every other output, --flv included.
                              The stream key never appears in any output (rtmp://server/app/****).
      --rtmp-queue-ms N       Media held for a slow server (default 2000). Live, past it, whole
                              video frames are dropped up to the next keyframe, and audio that does
                              not fit, counted; receiving never waits. In replay the reading waits.
      --reconnect             When the connection is lost, retry (backing off up to 4 s) and resume
                              at the next keyframe with fresh sequence headers, times running on.
                              Without it a lost connection ends the run: every other output is
                              finished as usual, and the exit status is 1.
      --realtime, --no-realtime
                              Replay: send the tags at the pace of their times (the default, as
                              servers expect a live stream), or as fast as the server takes them.

    SRTP (RFC 3711; decrypted with libsrtp2 before anything is parsed):
      --srtp-key SUITE:BASE64 Master key and salt, base64 as SDES's inline: gives them. A bare
                              BASE64 is AES_CM_128_HMAC_SHA1_80; an a=crypto value pasted whole
                              ('1 SUITE inline:KEY|2^31|1:1') or its key parameters alone
                              ('KEY|2^31|1:1') are taken, MKI and all. Suites: AES_CM_128_HMAC_SHA1_80,
                              AES_CM_128_HMAC_SHA1_32, AES_256_CM_HMAC_SHA1_80/_32, AEAD_AES_128_GCM,
                              AEAD_AES_256_GCM. Give it once per key: a call's two directions
                              have their own, and each key is tried on a new SSRC until one
                              authenticates. The SDP's a=crypto lines (RFC 4568) add theirs.
      --srtp-keying-material [SUITE:]HEX
                              DTLS-SRTP (WebRTC): the keying material the handshake exported
                              (RFC 5764 §4.2: client key, server key, client salt, server salt),
                              as a key log gives it; the suite is told by the length when not named.
      --dtls-role client|server|auto
                              Whose packets to decrypt with it: the DTLS client's, the server's,
                              or (auto, the default) either.
                              A packet that fails authentication is counted by SSRC and reason
                              and never parsed; keys never appear in any output.

    BOUNDS:
      --reorder-packets N     Packets held while waiting for a missing one (default 512).
      --latency-ms N          How long a missing packet is waited for: on the capture's clock
                              in replay (default 500), on the monotonic clock live (default 50).
                              When either bound is reached the packet is declared lost.
      --batch-ms N            Live: gather input for N ms between turns (default 0: each packet
                              as it comes). A process of many cameras wakes less and spends less
                              CPU on each (0.4x at 100 ms), its frames written up to N ms later;
                              keep N below --latency-ms where NACK repairs losses.
      --max-frame-bytes N     Largest access unit; larger ones are dropped (default 33554432).
      --max-packet-bytes N    Largest RTP payload held for reordering (default 65536).

    GENERAL:
      -q, --quiet             Print nothing but errors.
      -v, --verbose           Also print the RTP timestamps of dropped frames.
      -h, --help              Show this help.
      --version               Show the version.

    EXAMPLES:
      rtprecv --port 5004 --out frames.h264
      rtprecv --port 5004 --out - | ffplay -f h264 -
      rtprecv --sdp camera.sdp --out camera.h264 --duration 60
      rtprecv --bind 232.1.1.1 --iface eth0 --port 5004 --source 10.0.0.7 --out -
      rtprecv --port 5004 --y4m - | ffplay -
      rtprecv --pcap call.pcap --out call.h264 --yuv call.yuv --pix-fmt nv12
      rtprecv --port 5004 --flv - | ffplay -f flv -
      rtprecv --sdp camera.sdp --flv camera.flv            video and audio, each on its own port
      rtprecv rtsp://cam/stream --mp4 'cam-{start}.mp4' --segment-seconds 600 --reconnect
      rtprecv --port 5004 --audio-port 5006 --flv -        H.264 and G.711 from a camera
      rtprecv --pcap camera.pcapng --out camera.h264
      ssh cam-host tcpdump -U -w - udp port 5004 | rtprecv --pcap - --out - | ffplay -f h264 -
      rtprecv --pcap call.pcap --list
      rtprecv --pcap call.pcap --ssrc 0x1234abcd --out - | ffplay -f h264 -
      rtprecv --pcap ffmpeg.pcap --sdp ffmpeg.sdp --out video.h264 --stats-json stats.json
      rtprecv --pcap call.pcap --frames-json - -q | jq -c 'select(.status != "written")'
      rtprecv --pcap camera.pcap --sdp camera.sdp --out video.h264 --audio audio.aac
      rtprecv --pcap phone.pcap --audio call.wav          G.711 from a SIP call, no SDP needed
      rtprecv --pcap webrtc.pcap --sdp call.sdp --wav call.wav   Opus, decoded
      rtprecv --pcap linphone.pcap --out call.ivf --frame-md5 call.md5   VP8 from a SIP video call
      rtprecv --sdp camera.sdp --rtmp rtmp://127.0.0.1/live/cam --reconnect   restream a camera
      rtprecv --pcap sip.pcap --srtp-key KEY_A --srtp-key KEY_B --out video.h264   both directions
      rtprecv --config cameras.yml --check && rtprecv --config cameras.yml

    EXIT STATUS: 0 on success (a capture cut short is reported, and what came before it kept),
    1 when the input cannot be read, the port cannot be bound, the output cannot be written or
    publishing failed (without --reconnect), or an RTSP session was lost (without --reconnect),
    3 when the run ended as asked but not one RTP packet came (a wrong port, a firewall, a camera
    that answers PLAY and sends nothing; live, 5 s of nothing is warned about at once),
    64 on a usage error (or a config's error).
    """
}
