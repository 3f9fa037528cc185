import RTMPOutput
import RTPCore

extension Options {
    /// What is written, as --help shows it: files, audio, recordings, FLV and decoding, and the senders' quirks worked around.
    static let outputSections: [OptionSection] = [
        OptionSection("OUTPUT:", [
            OptionSpec(["-o", "--out"], value: "FILE", """
                The video's elementary stream; '-' for standard output. H.264 and
                H.265 as Annex-B with 4-byte start codes, VP8, VP9 and AV1 as IVF
                (times on the 90 kHz clock, from 0; the frame count filled in at
                the end when FILE is a regular file). Output starts at the first
                keyframe (IDR or recovery point), with its SPS and PPS put in
                front when the stream did not carry them. The directories of
                every output's path are made when missing.
                """) { o, r in o.out = try r.value() },
            OptionSpec(["--wait-keyframe"], """
                After a lost reference picture, also drop frames until the next
                keyframe, so that nothing written refers to a lost picture. A lost
                non-reference picture (nal_ref_idc 0, such as most B-frames) costs
                only itself; frame_num tells when whole pictures went with lost
                packets.
                """) { o, r in o.waitKeyframe = true },
            OptionSpec(["--spatial-layer"], value: "N", """
                VP9 with spatial layers: write the layers up to N (0, the base,
                to 7) instead of every one; a picture of several layers is written
                as one superframe, and the size reported is its largest layer's.
                """) { o, r in o.spatialLayer = try r.number(Int.self, 0...7) },
            OptionSpec(["--segment-seconds"], value: "N", """
                Cut --out, --flv and the recordings into files at the first keyframe
                after every N seconds (of the stream's time), named from their
                paths with {n} (0, 1, …, on past an earlier run's numbers) and
                {start} (UTC, as 20261201T154200Z): each starts with the parameter
                sets and a keyframe, an FLV with its header, onMetaData and
                sequence headers, a recording with its own, so each plays by
                itself (an H.265 one cut at a CRA, without the RASL pictures
                after it).
                """) { o, r in o.segmentSeconds = try r.number(Int.self, 1...86_400) },
            OptionSpec(["--segment-wallclock"], """
                End segments at the first keyframe past each multiple of N seconds
                of UTC (…:00, …:10 with N = 10; in a capture, of its packet times),
                so the files of many streams and processes line up.
                Live, SIGHUP (as log-rotation tools send it) reopens --out at its
                path from the next keyframe, and begins a whole new --flv or
                recording there if the last one was moved away (with segments:
                the next segment of each), and --frames-json at once; other
                outputs stay open.
                """) { o, r in o.segmentWallclock = true },
            OptionSpec(["--stats-json"], value: "FILE", "Write the statistics as JSON ('-' for standard output).") { o, r in o.statsJSON = try r.value() },
            OptionSpec(["--frames-json"], value: "FILE", """
                The frame ledger: one JSON object per line for every access unit
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
                """) { o, r in o.framesJSON = try r.value() },
            OptionSpec(["--report"], value: "FILE.html", """
                A page to look at, one file that opens offline: per stream a
                summary, bitrate, loss, jitter and frame sizes (audio: level) on
                one time axis, every dropped or repaired frame of the ledger
                marked with its reason, and pictures of keyframes (at most 16,
                one every 2 s or more), decoded through libavcodec. Written at
                the end of the run; with --all-streams or several SDPs, one page
                takes every stream, unless its path names each ({ssrc}, {sdp}).
                """) { o, r in o.report = try r.value() },
        ]),
        OptionSection("AUDIO OUTPUT:", [
            OptionSpec(["--audio"], value: "FILE", """
                The audio stream's frames, bit-exact, in the file its codec plays
                from: AAC as ADTS (.aac), MPEG audio as .mp3, G.711, G.722 and
                G.726 as WAV with their format tags, L16 and L24 as PCM WAV, Opus
                in Ogg (.opus, through libavformat). '-' for standard output. A
                lost frame leaves a gap, counted in the statistics, never filled
                in; a silence the sender left is kept as G.711 or PCM silence.
                In Ogg, losses and silences are packets the player conceals.
                """) { o, r in o.audio = try r.value() },
            OptionSpec(["--wav"], value: "FILE", """
                The audio stream decoded (libavcodec) into 16-bit PCM WAV: every
                codec above. A lost frame becomes silence of its length, and so
                does a silence the sender left, so what follows stays in time; a
                silence sent as comfort noise (RFC 3389) is noise at the sender's
                level. All are counted. '-' streams it.
                """) { o, r in o.wav = try r.value() },
        ]),
        OptionSection("RECORDINGS (libavformat's muxers; each beside every other output):", outro: """
            Times are the stream's presentation times from 0, decode times derived from its reorder
            depth (B-frames kept in order); a sender's timestamp jump is stepped over, and ends the
            segment, with segments. --segment-seconds and SIGHUP cut recordings as they cut --flv.
            The session's audio goes in too, as it came: AAC, MPEG audio and Opus in all three, G.711
            and G.722 in Matroska; a session of audio alone starts at its first frame. A codec a
            container does not carry is said once and left out of it. '-' streams any of them.
            """, [
            OptionSpec(["--mp4"], value: "FILE", """
                Fragmented MP4: a header without an index, then the frames in
                fragments, one at every keyframe and at least every --fragment-ms,
                each handed to the kernel whole, so a file cut at any moment (a
                crash, kill -9) plays up to its last whole fragment. H.264
                ('avc1'), H.265 ('hvc1', as browsers take it), VP9 and AV1. The
                track is declared from the first keyframe; frames before it are
                left out. A keyframe of another picture size or codec begins a
                new file: the next segment, or the next part (cam.1.mp4).
                """) { o, r in o.mp4 = try r.value() },
            OptionSpec(["--mkv"], value: "FILE", """
                Matroska, in clusters of at most --fragment-ms: every codec
                rtprecv takes, VP8 included. Readable when cut, as MP4 is. A
                FILE named .webm holding VP8, VP9, AV1 and Opus alone is WebM,
                which browsers play.
                """) { o, r in o.mkv = try r.value() },
            OptionSpec(["--ts"], value: "FILE", "MPEG-TS (H.264 and H.265), readable from any point.") { o, r in o.ts = try r.value() },
            OptionSpec(["--no-audio-transcode"], """
                Leave G.711, G.722, G.726, L16 and L24 out of --mp4 and --ts
                (and G.726 out of --mkv), which cannot carry them, rather than
                encode them to AAC (4 bits a sample: 32 kbit/s at 8 kHz, through
                libavcodec) on the session timeline, in sync with the video.
                """) { o, r in o.noAudioTranscode = true },
            OptionSpec(["--fragment-ms"], value: "N", """
                Longest fragment (MP4) or cluster (Matroska) in milliseconds, 100 to
                60000 (default 1000): the most a crash may cost the file.
                """) { o, r in o.fragmentMilliseconds = try r.number(Int.self, 100...60_000) },
            OptionSpec(["--faststart"], """
                Once the MP4 (not segmented) is finished, write it again with its
                index in front and no fragments, for editors and progressive
                download; until then it is fragmented, and a crash leaves that.
                """) { o, r in o.faststart = true },
            OptionSpec(["--fsync"], value: "POLICY", """
                What survives a power cut, not only a crash: 'segment' (default)
                makes each finished file and its name durable (fsync), 'fragment'
                also what was handed over, once per --fragment-ms of media, and
                'none' leaves it to the kernel.
                """) { o, r in
                let text = try r.value()
                guard let policy = FsyncPolicy(rawValue: text) else {
                    throw UsageError(description: "invalid value '\(text)' for '--fsync': expected fragment, segment or none")
                }
                o.fsync = policy
            },
            OptionSpec(["--segment-index"], value: "FILE", """
                One JSON line per recording file closed, appended (earlier runs'
                lines stay): path, container, start_utc, end_utc, start_ms and
                end_ms on the session timeline, duration_ms, frames, keyframes,
                audio_frames, bytes, codecs, closed_cleanly; and one with
                deleted_utc and reason for each file retention removes. A segment
                open when a process died is read back and listed at the next
                start, closed_cleanly false.
                """) { o, r in o.segmentIndex = try r.value() },
            OptionSpec(["--retain-hours"], value: "N", "With segments: remove the oldest recording segments (this run's and") { o, r in
                let text = try r.value()
                guard let hours = Double(text), hours > 0, hours <= 87_600 else {
                    throw UsageError(description: "invalid value '\(text)' for '--retain-hours': expected hours above 0, such as 48 or 0.5")
                }
                o.retainHours = hours
            },
            OptionSpec(["--retain-size"], value: "SIZE", """
                earlier ones' of the same name) once they are older than N hours,
                or while a directory's segments together are larger than SIZE
                (500M, 20G: powers of 1024). The segment being written, and at the
                end the last one, always stay; each removal is said and counted.
                """) { o, r in
                let text = try r.value()
                guard let bytes = Options.size(text), bytes > 0 else {
                    throw UsageError(description: "invalid value '\(text)' for '--retain-size': expected a size such as 500M, 20G or 2T "
                                     + "(powers of 1024), or bytes")
                }
                o.retainBytes = bytes
            },
        ]),
        OptionSection("FLV OUTPUT:", [
            OptionSpec(["--flv"], value: "FILE", """
                FLV with onMetaData, video sequence headers (again when they change)
                and one tag per frame, timed by decode time. Duration and size are
                rewritten at the end when FILE is a regular file; '-' streams it.
                After a lost reference picture, frames wait for the next keyframe,
                as players smear until then. A frame over 16 MiB, more than a tag
                holds, is left out (with a warning), and so are those after it.
                FLV carries H.264 and H.265: VP8, VP9 and AV1 frames are left out
                of it (said at start-up when the SDP or --codec names the codec)
                and go to the other outputs.
                """) { o, r in o.flv = try r.value() },
            OptionSpec(["--flv-keep-after-loss"], """
                Write the frames between a loss and the next keyframe anyway.
                The session's audio goes in too: AAC (its sequence header holds
                the AudioSpecificConfig as sent), MP3 and G.711; Opus and G.722
                have no FLV code and are left out, with a warning. Both tracks
                are timed on one timeline: from arrival, then from the senders'
                RTCP reports, corrected without a time ever going back.
                """) { o, r in o.flvKeepAfterLoss = true },
            OptionSpec(["--flv-hevc-legacy"], """
                H.265 as codec id 12 in AVC's tag layout, which some servers and
                players expect, instead of Enhanced RTMP's ExVideoTagHeader with
                FourCC 'hvc1' (SequenceStart, CodedFrames, CodedFramesX). Either
                way VPS, SPS and PPS go into the sequence header. Also for --rtmp.
                """) { o, r in o.flvHEVCLegacy = true },
            OptionSpec(["--interleave-ms"], value: "N", """
                How long one FLV track's tags wait for the other's, from their
                arrival (default 1000): a silent track holds the other no longer.
                A recording's header waits as long for the session's audio.
                """) { o, r in o.interleaveMilliseconds = try r.number(Int.self, 0...60_000) },
        ]),
        OptionSection("DECODED OUTPUT (libavcodec; any of these turns decoding on; one pass feeds every output):", outro: "'-' writes any of these to standard output: rtprecv --port 5004 --y4m - | ffplay -", [
            OptionSpec(["--decode"], "Decode, for the statistics alone.") { o, r in o.decode = true },
            OptionSpec(["--yuv"], value: "FILE", """
                Raw planes, frame after frame, in presentation order. Each frame
                keeps its own size when the stream changes resolution.
                """) { o, r in o.yuv = try r.value() },
            OptionSpec(["--y4m"], value: "FILE", """
                YUV4MPEG2 with size, rate (from the SPS VUI, else the RTP
                timestamps), aspect and chroma in its header. Frames are scaled to
                the first frame's size.
                """) { o, r in o.y4m = try r.value() },
            OptionSpec(["--frame-md5"], value: "FILE", "One MD5 per written frame, in the form of ffmpeg's framemd5.") { o, r in o.frameMD5 = try r.value() },
            OptionSpec(["--pix-fmt"], value: "NAME", """
                Output pixel format (default yuv420p): any libswscale format, such as
                nv12, yuv444p, yuv420p10le, rgb24, gray. Converted only when needed.
                """) { o, r in o.pixelFormat = try r.value() },
            OptionSpec(["--scale"], value: "WxH", "Scale every frame to this size.") { o, r in
                let text = try r.value()
                let parts = text.lowercased().split(separator: "x")
                guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (2...16384).contains(w), (2...16384).contains(h)
                else { throw UsageError(description: "invalid value '\(text)' for '--scale': expected WIDTHxHEIGHT, such as 1280x720") }
                o.scale = (w, h)
            },
            OptionSpec(["--threads"], value: "N", "Decoder threads (default 0: as many as libavcodec sees fit).") { o, r in o.threads = try r.number(Int.self, 0...64) },
            OptionSpec(["--skip-corrupt"], """
                Drop frames the decoder flags as damaged, and frames whose reference
                pictures were lost. Without it every decoded frame is written.
                """) { o, r in o.skipCorrupt = true },
        ]),
        OptionSection("SENDERS' QUIRKS (worked around, each said once as it is first seen):", intro: """
            - RTP timestamps that never advance (FFmpeg -c copy from a raw .h264, some cameras): frames
              are timed from the SPS VUI, else from arrival, in display order.
            - An STAP-A/STAP-B/MTAP unit whose size runs past its packet: that unit is lost, its frame
              dropped; the units before it (often a new SPS and PPS) are kept.
            - MTAP unit sizes that count DOND and the TS offset: read that way when only that fits.
            - An SDP that understates sprop-interleaving-depth: the depth grows to what units show.
            """, []),
    ]
}
