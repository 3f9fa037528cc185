public enum Help {
    public static let version = "rtprecv 0.1.0"

    public static let usage = "rtprecv (--pcap FILE | --port N | rtsp://HOST/PATH) [--sdp FILE] [--out FILE|-] [options]"

    /// Everything `--help` prints: the overview, each section of options from the table that
    /// the parser reads too, and the examples.
    public static var text: String { opening + "\n\n" + Options.sections.map(\.text).joined(separator: "\n") + "\n" + closing }

    /// What comes before the options.
    static let opening = """
    OVERVIEW: Receive H.264, H.265, VP8, VP9, AV1 or Motion JPEG video and its audio carried over RTP
    (RFC 3550, RFC 6184, RFC 7798, RFC 7741, RFC 9628, AOMedia's AV1 payload format, RFC 2435) and
    write them out.

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
    of a keyframe that lacks it; any loss damages every unit to the next keyframe. Motion JPEG
    (RFC 2435, static payload type 26, as IP cameras send it) gets back the headers its packets
    leave out (the quantization tables its Q factor stands for or those it carries, the standard
    Huffman tables, restart intervals), and is written JPEG after JPEG; a loss costs only its frame.

    Beside the video it takes one audio stream: AAC (RFC 3640 mpeg4-generic and RFC 6416
    MP4A-LATM, which need the SDP), G.711 (PCMU, PCMA), G.722, MPEG audio (RFC 2250 MPA) and
    Opus (RFC 7587). Static payload types (0, 8, 9, 14) are taken without an SDP.

    It pulls from RTSP cameras and servers (rtsp://… over UDP or TCP, rtsps://… over TLS), decrypts SRTP
    (--srtp-key, or the SDP's a=crypto), talks back over RTCP live (receiver reports, NACK with
    RTX, keyframe requests), and publishes to an RTMP server (--rtmp).

    USAGE: rtprecv --port N [--out FILE|-] [options]        receive live until Ctrl-C
           rtprecv --pcap FILE [--out FILE|-] [options]     replay a capture
           rtprecv --pcap FILE --list                       list the RTP streams in a capture
           rtprecv rtsp://[USER@]HOST[:PORT]/PATH [options] pull from an RTSP camera or server
           rtprecv rtsps://HOST[:PORT]/PATH [options]       the same over TLS
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
    """

    /// What follows the options.
    static let closing = """
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
      rtprecv --pcap webrtc.pcapng --tls-keylog keys.log --audio-payload-type 111 \\
              --audio-codec opus --mkv call.mkv   a browser's call: its keys from SSLKEYLOGFILE
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
