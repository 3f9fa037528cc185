import RTMPOutput
import RTPCore

extension Options {
    /// Publishing, decryption, bounds and the rest, as --help shows them.
    static let sessionSections: [OptionSection] = [
        OptionSection("RTMP (publish to a server, through libavformat's RTMP client):", [
            OptionSpec(["--rtmp"], value: "URL", """
                Publish the tags --flv would write, live: rtmp://server[:port]/app/key
                (rtmps://, rtmpt:// where libavformat has them). Nothing goes before
                the first keyframe; then the sequence headers, then the keyframe, with
                times from 0. It combines with every other output, --flv included.
                The stream key never appears in any output (rtmp://server/app/****).
                """) { o, r in
                let url = try r.value()
                if let problem = RTMPURL.validationError(url) { throw UsageError(description: problem) }
                o.rtmp = url
            },
            OptionSpec(["--rtmp-queue-ms"], value: "N", """
                Media held for a slow server (default 2000). Live, past it, whole
                video frames are dropped up to the next keyframe, and audio that does
                not fit, counted; receiving never waits. In replay the reading waits.
                """) { o, r in o.rtmpQueueMilliseconds = try r.number(Int.self, 100...60_000) },
            OptionSpec(["--reconnect"], """
                When the connection is lost, retry (backing off up to 4 s) and resume
                at the next keyframe with fresh sequence headers, times running on.
                Without it a lost connection ends the run: every other output is
                finished as usual, and the exit status is 1.
                """),
            OptionSpec(["--realtime"], "Replay: send the tags at the pace of their times (the default, as") { o, r in o.realtime = true },
            OptionSpec(["--no-realtime"], "servers expect a live stream), or as fast as the server takes them.") { o, r in o.realtime = false },
        ]),
        OptionSection("SRTP (RFC 3711; decrypted with libsrtp2 before anything is parsed):", [
            OptionSpec(["--srtp-key"], value: "SUITE:BASE64", """
                Master key and salt, base64 as SDES's inline: gives them. A bare
                BASE64 is AES_CM_128_HMAC_SHA1_80; an a=crypto value pasted whole
                ('1 SUITE inline:KEY|2^31|1:1') or its key parameters alone
                ('KEY|2^31|1:1') are taken, MKI and all. Suites: AES_CM_128_HMAC_SHA1_80,
                AES_CM_128_HMAC_SHA1_32, AES_256_CM_HMAC_SHA1_80/_32, AEAD_AES_128_GCM,
                AEAD_AES_256_GCM. Give it once per key: a call's two directions
                have their own, and each key is tried on a new SSRC until one
                authenticates. The SDP's a=crypto lines (RFC 4568) add theirs.
                """) { o, r in
                let text = try r.value()
                do {
                    o.srtpKeys.append(try SRTPMasterKey(option: text, origin: "--srtp-key #\(o.srtpKeys.count + 1)"))
                } catch {
                    throw UsageError(description: "\(error)")
                }
            },
            OptionSpec(["--srtp-keying-material"], value: "[SUITE:]HEX", """
                DTLS-SRTP (WebRTC): the keying material the handshake exported
                (RFC 5764 §4.2: client key, server key, client salt, server salt),
                as a key log gives it; the suite is told by the length when not named.
                """) { o, r in
                let text = try r.value()
                do {
                    o.dtlsKeyingMaterial = try DTLSKeyingMaterial(option: text, origin: "--srtp-keying-material")
                } catch {
                    throw UsageError(description: "\(error)")
                }
            },
            OptionSpec(["--tls-keylog"], value: "FILE", """
                A capture's DTLS-SRTP keys from a TLS key log (SSLKEYLOGFILE, as
                Firefox and OpenSSL's keylog callback write it): each DTLS 1.2
                handshake in the capture whose client random the log names gives
                both directions' keys (the capture must be a file, not -).
                """) { o, r in o.tlsKeyLog = try r.value() },
            OptionSpec(["--dtls-role"], value: "client|server|auto", """
                Whose packets to decrypt with it: the DTLS client's, the server's,
                or (auto, the default) either.
                A packet that fails authentication is counted by SSRC and reason
                and never parsed; keys never appear in any output.
                """) { o, r in
                let text = try r.value()
                guard let role = DTLSRole(rawValue: text.lowercased()) else {
                    throw UsageError(description: "invalid value '\(text)' for '--dtls-role': expected client, server or auto")
                }
                o.dtlsRole = role
            },
        ]),
        OptionSection("BOUNDS:", [
            OptionSpec(["--reorder-packets"], value: "N", "Packets held while waiting for a missing one (default 512).") { o, r in o.reorderPackets = try r.number(Int.self, 1...65536) },
            OptionSpec(["--latency-ms"], value: "N", """
                How long a missing packet is waited for: on the capture's clock
                in replay (default 500), on the monotonic clock live (default 50).
                When either bound is reached the packet is declared lost.
                """) { o, r in o.latencyMilliseconds = try r.number(Int.self, 0...60_000) },
            OptionSpec(["--batch-ms"], value: "N", """
                Live: gather input for N ms between turns (0: each packet as it
                comes). A camera wakes its loop less and costs less CPU (0.6x at
                100 ms), its frames written up to N ms later; keep N below
                --latency-ms where NACK repairs losses. Default 0, but 100 for a
                config's source into files only (not RTMP, not stdout), over TCP,
                or over UDP with a receive buffer of 2 MiB (as root) and no NACK.
                """) { o, r in o.batchMilliseconds = try r.number(Int.self, 0...1000) },
            OptionSpec(["--max-frame-bytes"], value: "N", "Largest access unit; larger ones are dropped (default 33554432).") { o, r in o.maxFrameBytes = try r.number(Int.self, 1024...(1 << 30)) },
            OptionSpec(["--max-packet-bytes"], value: "N", "Largest RTP payload held for reordering (default 65536).") { o, r in o.maxPacketBytes = try r.number(Int.self, 64...65536) },
        ]),
        OptionSection("GENERAL:", [
            OptionSpec(["-q", "--quiet"], "Print nothing but errors.") { o, r in o.quiet = true },
            OptionSpec(["-v", "--verbose"], "Also print the RTP timestamps of dropped frames.") { o, r in o.verbose = true },
            OptionSpec(["-h", "--help"], "Show this help.") { o, r in o.mode = .help },
            OptionSpec(["--version"], "Show the version.") { o, r in o.mode = .version },
        ]),
    ]
}
