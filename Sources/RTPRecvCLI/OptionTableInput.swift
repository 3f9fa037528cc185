import RTPCore
import RTSPInput
import TLS

extension Options {
    /// The input's options, as --help shows them: RTSP, live, captures, SDPs and which streams are taken.
    static let inputSections: [OptionSection] = [
        OptionSection("RTSP (an rtsp:// or rtsps:// URL instead of --port or --pcap):", intro: """
            The client sends OPTIONS, DESCRIBE, a SETUP for the first video line of a codec above and
            the first audio line rtprecv takes, PLAY, keep-alives at half the session's timeout
            (GET_PARAMETER when the server lists it, else OPTIONS), and TEARDOWN when it stops, on
            Ctrl-C too. The server's SDP stands in for --sdp; what the session worked around is named
            in the summary.
            """, [
            OptionSpec(["--rtsp-transport"], value: "MODE", """
                auto (default): UDP first, then TCP: in the same session when the
                server refuses UDP (461), in a fresh one when it answers with
                another transport or sends nothing within 2 s of PLAY; udp; tcp
                (interleaved in the RTSP connection, RFC 2326 §10.12, RTCP back in
                its channel); or multicast (the group and ports the server names,
                joined).
                """) { o, r in
                let text = try r.value()
                guard let choice = RTSPPull.Preference(rawValue: text.lowercased()) else {
                    throw UsageError(description: "invalid value '\(text)' for '--rtsp-transport': expected auto, udp, tcp or multicast")
                }
                o.rtspTransport = choice
            },
            OptionSpec(["--tls-fingerprint"], value: "SHA256", """
                rtsps:// (RTSP over TLS, media in the connection unless
                --rtsp-transport says otherwise): accept the server whose
                certificate has this SHA-256 fingerprint (as `openssl x509
                -fingerprint -sha256` prints it, or 64 hex digits), whatever it
                names: a camera's own, self-signed. Without it the certificate must
                chain to a trusted authority and name the URL's host; a failure
                names the certificate's fingerprint.
                """) { o, r in
                let text = try r.value()
                guard let fingerprint = TLSTrust.fingerprint(parsing: text) else {
                    throw UsageError(description: "invalid value '\(text)' for '--tls-fingerprint': expected a SHA-256 fingerprint, "
                                     + "32 pairs of hex digits (AB:CD:…)")
                }
                o.tlsTrust.fingerprint = fingerprint
            },
            OptionSpec(["--tls-ca-file"], value: "FILE", """
                rtsps://: trust the authorities of this PEM file rather than the
                system's.
                """) { o, r in o.tlsTrust.caFile = try r.value() },
            OptionSpec(["--user"], value: "NAME", "The login (else the URL's). Basic and Digest (MD5, MD5-sess,") { o, r in o.user = try r.value() },
            OptionSpec(["--password"], value: "TEXT", """
                SHA-256) are answered. The password comes from --password, else
                the URL (percent-encoded), else the RTSP_PASSWORD environment
                variable, which keeps it out of the process list. It is never
                printed, not even with -v.
                """) { o, r in o.password = try r.value() },
            OptionSpec(["--reconnect"], """
                When the connection is lost, or no media comes for --timeout (10 s
                by default), set the session up again, after 1 s, 2 s, 4 s … up to
                30 s (±25%), while the rest of the run goes on (--metrics answers);
                a camera down at the start is waited for the same way. The outputs
                go on in the same files from the next keyframe; the summary counts
                reconnects and the time without media.
                """) { o, r in o.reconnect = true },
        ]),
        OptionSection("LIVE INPUT (without --pcap):", [
            OptionSpec(["--port"], value: "N", """
                UDP port to listen on (default: from --sdp, else 5004; 0: any free).
                LOW-HIGH listens on every port of the range (at most 1024) and
                records every stream on them apart (--all-streams); in a replay,
                takes the datagrams to those ports.
                With --sdp, every media line's port and its RTCP port (a=rtcp, or
                the port + 1; none with a=rtcp-mux) are listened on at once.
                """) { o, r in
                let text = try r.value()
                let bounds = text.split(separator: "-", omittingEmptySubsequences: false).map { UInt16($0) }
                if bounds.count == 2, let low = bounds[0], let high = bounds[1] {
                    guard low > 0, low <= high, Int(high - low) < Options.maxPortRange else {
                        throw UsageError(description: "invalid value '\(text)' for '--port': a range is LOW-HIGH, from 1, "
                                         + "at most \(Options.maxPortRange) ports")
                    }
                    (o.port, o.portRange) = (low, low...high)
                } else {
                    guard bounds.count == 1, let single = bounds[0] else {
                        throw UsageError(description: "invalid value '\(text)' for '--port': expected a port (0-65535) or a range LOW-HIGH")
                    }
                    o.port = single
                }
            },
            OptionSpec(["--audio-port"], value: "N", """
                Without an SDP: also listen here for static-payload-type audio
                (PCMU, PCMA, G.722, MPA), and on both ports + 1 for RTCP.
                """) { o, r in o.audioPort = try r.number(UInt16.self, 1...UInt16.max) },
            OptionSpec(["--bind"], value: "ADDR", """
                Local address (default [::], which takes IPv4 and IPv6). A multicast
                group, here or in the SDP's c= line, is joined.
                """) { o, r in o.bind = try r.value() },
            OptionSpec(["--iface"], value: "NAME", """
                Interface for the multicast join (default: the kernel's choice),
                also given as ADDR%NAME; a link-local IPv6 address (fe80::/10,
                ff02::/16) needs one.
                """) { o, r in o.interface = try r.value() },
            OptionSpec(["--source"], value: "ADDR", """
                Drop, and count, datagrams from any other sender. With a multicast
                group the join is source-specific (SSM, which 232.0.0.0/8 and
                ff3x:: need), so the kernel drops the others. The SDP's
                a=source-filter: incl does the same.
                """) { o, r in o.sourceFilter = try r.value() },
            OptionSpec(["--metrics"], value: "[ADDR:]PORT", """
                Serve the statistics over HTTP (default address 127.0.0.1): GET
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
                """) { o, r in
                let text = try r.value()
                // A o.port alone is on loopback: nothing is served beyond the host unless asked.
                o.metrics = try Options.addressAndPort(text.contains(":") ? text : "127.0.0.1:" + text, flag: r.name,
                                                     example: "127.0.0.1:9464, [::1]:9464 or 9464", given: text)
            },
            OptionSpec(["--rcvbuf"], value: "BYTES", """
                Socket receive buffer to ask for (default 8388608); the granted
                size is reported, with a warning when it is less.
                """) { o, r in o.receiveBufferBytes = try r.number(Int.self, 4096...(1 << 30)) },
            OptionSpec(["--duration"], value: "SECONDS", "Stop after this long.") { o, r in o.duration = try r.seconds() },
            OptionSpec(["--frames"], value: "N", "Stop after writing N frames (also with --pcap).") { o, r in o.frames = try r.number(Int.self, 1...Int.max) },
            OptionSpec(["--rtcp-to"], value: "ADDR:PORT", """
                Where RTCP goes (default: where the sender reports come from, else
                the RTP source's port + 1, or its port with a=rtcp-mux). rtprecv
                sends receiver reports (RFC 3550) with a CNAME from its RTCP port
                (the RTP port with rtcp-mux), and BYE at the end.
                """) { o, r in o.rtcpTo = try Options.addressAndPort(try r.value(), flag: r.name, example: "10.0.0.7:5005 or [::1]:5005") },
            OptionSpec(["--request-keyframe"], """
                Ask for a keyframe (PLI, RFC 4585) while the output waits for one, at
                the start or after a damaged reference, every 200 ms until it comes;
                on by itself when the SDP offers a=rtcp-fb:PT nack pli, and FIR
                (RFC 5104) after 3 PLIs when it offers ccm fir.
                """) { o, r in o.requestKeyframe = true },
            OptionSpec(["--nack"], """
                Ask for lost packets again (generic NACK, RFC 4585) as soon as a gap
                shows, every round trip (20 ms until one is measured), three times
                at most, while they could still come within --latency-ms; on by
                itself when the SDP offers nack. The round trip comes from XR
                (RFC 3611): a sender that echoes the reference time rtprecv sends.
                """) { o, r in o.nack = true },
            OptionSpec(["--rtx-payload-type"], value: "N", """
                Retransmissions (RTX, RFC 4588) come on payload type N, for the
                video's; the SDP's rtpmap rtx with apt= says so by itself. RTX is
                unwrapped into its stream, live and in captures.
                """) { o, r in o.rtxPayloadType = try r.number(UInt8.self, 96...127) },
            OptionSpec(["--no-rtcp"], "Send nothing back.") { o, r in o.noRTCP = true },
            OptionSpec(["--timeout"], value: "SECONDS", "Say so when no packet arrived for this long.") { o, r in o.timeout = try r.seconds() },
            OptionSpec(["--exit-on-timeout"], """
                ... and then stop.
                Ctrl-C (SIGINT) or SIGTERM stops cleanly: waiting packets are
                flushed, every complete frame written, the statistics printed.
                A second Ctrl-C exits at once.
                """) { o, r in o.exitOnTimeout = true },
        ]),
        OptionSection("CAPTURE INPUT:", outro: """
            Without --sdp, a replay and --list take the session description from the capture's own
            signalling when it holds one: an RTSP DESCRIBE reply (its lines mapped to ports by the
            SETUP replies) or SIP INVITE/200 OK/ACK bodies, within its first 16 MiB.
            """, [
            OptionSpec(["--pcap"], value: "FILE", """
                Capture to replay (pcap or pcapng, told apart by content). '-'
                reads standard input as it comes, as from tcpdump -U -w -.
                Ctrl-C stops cleanly, as live.
                Link types: Ethernet (VLAN), Linux SLL/SLL2, loopback, raw IP.
                """) { o, r in o.pcap = try r.value() },
            OptionSpec(["--list"], """
                List the RTP streams in the capture and exit: per SSRC, the
                packets, the losses and the codec of each payload type it carried
                (H.264 with its resolution and NAL unit types; VP8 and VP9 with
                their resolution, layers and keyframes; AV1 with its resolution;
                others by name and packet duration; comfort noise; telephone
                events with their digits). With --sdp, dynamic payload types are
                named from its rtpmap lines.
                """) { o, r in o.mode = .list },
            OptionSpec(["--tcp-framing"], value: "MODE", """
                RTP carried in the capture's TCP streams, each connection put back in
                order (retransmissions, overlaps, reordering; a segment the capture
                missed costs only the packets it held): rtsp (default: RTSP's
                interleaved $ frames, RFC 2326 §10.12) or rfc4571 (a 16-bit length
                before each packet).
                """) { o, r in
                let text = try r.value()
                guard let framing = InterleavedCapture.Framing(rawValue: text.lowercased()) else {
                    throw UsageError(description: "invalid value '\(text)' for '--tcp-framing': expected rtsp or rfc4571")
                }
                o.tcpFraming = framing
            },
        ]),
        OptionSection("BOTH:", [
            OptionSpec(["--sdp"], value: "FILE", """
                Session description: port, address, source filter, payload types
                (the video on any of its line's, each with its own fmtp, as an
                offer lists several), sprop-parameter-sets (SPS/PPS sent only
                out of band), and for
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
                """) { o, r in o.sessionSDPs.append(try r.value()) },
            OptionSpec(["--sdp-dir"], value: "DIR", "Every *.sdp file in DIR, as --sdp given for each.") { o, r in o.sdpDirectory = try r.value() },
        ]),
        OptionSection("STREAM SELECTION (default: the first stream that proves to carry one of the codecs above):", [
            OptionSpec(["--ssrc"], value: "N", "Only this SSRC (decimal or 0x-hex).") { o, r in o.ssrc = try r.number(UInt32.self, 0...UInt32.max) },
            OptionSpec(["--payload-type"], value: "N", "Only this RTP payload type (default: from --sdp, else any of 35-127).") { o, r in o.payloadType = try r.number(UInt8.self, 0...127) },
            OptionSpec(["--codec"], value: "NAME", """
                h264, h265, vp8, vp9, av1 or mjpeg: the codec of payload types
                the SDP does not name (an SDP's a=rtpmap H264/90000, H265/90000,
                VP8/90000, VP9/90000, AV1/90000 or JPEG/90000, or its static
                type 26, decides; without either, each stream is tried as each
                until one proves itself: VP8 and VP9 by a keyframe header or
                PictureIDs that follow on, AV1 by a sequence header; Motion JPEG
                only where named: type 26, the SDP, or this with --payload-type).
                """) { o, r in
                let text = try r.value()
                guard let named = VideoCodec(rawValue: text.lowercased()) else {
                    let names = VideoCodec.listed(\.rawValue)
                    throw UsageError(description: "invalid value '\(text)' for '--codec': expected \(names)")
                }
                o.codec = named
            },
            OptionSpec(["--dependency-descriptor"], value: "ID", """
                AV1: the RFC 8285 header extension ID (1-255) of the dependency
                descriptor, where no SDP's a=extmap names it: which units a loss
                damages is read from it (a lost frame nothing refers to costs only
                itself) rather than taken as all to the next keyframe.
                """) { o, r in o.dependencyDescriptorID = try r.number(UInt8.self, 1...255) },
            OptionSpec(["--port"], value: "N", """
                With --pcap: only datagrams to this UDP port (default: from
                --sdp, else any).
                """),
            OptionSpec(["--max-streams"], value: "N", """
                Candidate streams followed at once (default 16, or one a port of a
                --port range); with --all-streams, the streams recorded.
                """) { o, r in
                o.maxStreams = try r.number(Int.self, 1...4096)
                o.maxStreamsGiven = true
            },
            OptionSpec(["--all-streams"], """
                Record every video stream (each SSRC on a dynamic payload type)
                of a capture or of the UDP ports listened on, each apart, with its
                own reordering, repair and ledger, into files named from the output
                paths with {ssrc} (8 hex digits), {pt}, {port} (the destination
                port) and {src} (the sender's address) filled in, such as
                --out 'rec/{port}-{ssrc}.h264'. A path with any of them implies
                it. {codec} (h264, h265, vp8, vp9, av1, mjpeg) may name the file too:
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
                """) { o, r in o.allStreams = true },
            OptionSpec(["--audio-ssrc"], value: "N", "The audio stream: only this SSRC.") { o, r in o.audioSSRC = try r.number(UInt32.self, 0...UInt32.max) },
            OptionSpec(["--audio-payload-type"], value: "N", """
                The audio stream: only this payload type (default: the SDP's audio
                line, else 0 PCMU, 8 PCMA, 9 G.722, 10 and 11 L16 or 14 MPA).
                """) { o, r in o.audioPayloadType = try r.number(UInt8.self, 0...127) },
            OptionSpec(["--audio-codec"], value: "NAME", """
                opus, pcmu, pcma, g722, g726-32 (-16, -24, -40, and AAL2's
                packing as aal2-g726-32) or mpa: the codec of --audio-payload-type
                where no SDP names it (a WebRTC or SIP capture without its
                signalling; Opus is 48000/2 in RTP whatever it carries). AAC
                needs its config, and L16 and L24 their rate and channels, which
                only an SDP gives (--list names the rtpmap L16 or L24 needs).
                """) { o, r in o.audioCodec = try Options.audioCodec(named: try r.value()) },
            OptionSpec(["--no-audio"], "Leave audio out: count it as another stream.") { o, r in o.noAudio = true },
        ]),
    ]
}
