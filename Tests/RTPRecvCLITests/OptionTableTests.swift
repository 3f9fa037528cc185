@testable import RTPRecvCLI
import RTPCore
import SystemIO
import XCTest

/// The option table that the parser, `--help` and the config file all read: each option taken
/// once, shown in `--help`, and taking a value exactly when its help names one.
final class OptionTableTests: XCTestCase {
    private var taking: [OptionSpec] { Options.sections.flatMap(\.options).filter { $0.take != nil } }

    func testEveryNameIsTakenByOneOption() {
        var seen: [String: String] = [:]
        for option in taking {
            for name in option.names {
                XCTAssertNil(seen[name], "\(name) taken by '\(option.label)' and by '\(seen[name] ?? "")'")
                seen[name] = option.label
            }
        }
        XCTAssertGreaterThan(seen.count, 80)
        // An option described again in another section is taken where it is described first.
        for option in Options.sections.flatMap(\.options) where option.take == nil {
            for name in option.names { XCTAssertNotNil(seen[name], "\(name) is described but never taken") }
        }
    }

    func testAnOptionTakesAValueExactlyWhenItsHelpNamesOne() throws {
        for option in taking {
            for name in option.names {
                var alone = Options()
                var reader = ArgumentReader([name])
                XCTAssertTrue(reader.next())
                do {
                    let taken = try alone.take(&reader)
                    XCTAssertTrue(taken, name)
                    XCTAssertNil(option.value, "\(name) shows a value (\(option.value ?? "")) but takes none")
                } catch {
                    XCTAssertNotNil(option.value, "\(name) takes a value its help does not name")
                    XCTAssertEqual("\(error)", "missing value for '\(name)'")
                }
            }
        }
    }

    func testHelpShowsEveryOptionAtTheStartOfALine() {
        let lines = Help.text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        for option in taking {
            XCTAssertTrue(lines.contains { $0.hasPrefix(option.label) }, "--help lacks \(option.label)")
        }
        XCTAssertFalse(Help.text.split(separator: "\n").contains { $0.count > 100 }, "a line of --help runs too long")
    }

    /// The README's options are the parser's: each long option named there (the general ones,
    /// --help, --version, --quiet and --verbose, aside).
    func testTheReadmeNamesEveryOption() throws {
        let readme = try String(contentsOf: Harness.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let general: Set = ["--help", "--version", "--quiet", "--verbose"]
        for option in taking {
            for name in option.names where name.hasPrefix("--") && !general.contains(name) {
                XCTAssertTrue(readme.contains("`" + name), "README.md does not name \(name)")
            }
        }
    }

    /// A config's settings are the options, on/off or valued as the table says.
    func testTheConfigReadsWhetherASettingTakesAValueFromTheTable() {
        XCTAssertNil(Options.optionsByName["--reconnect"]?.value)
        XCTAssertEqual(Options.optionsByName["--mp4"]?.value, "FILE")
        XCTAssertNil(Options.optionsByName["--nothing"])
    }

    /// A config's source gathers by default only into files, over TCP or over UDP with a large
    /// receive buffer and no NACK asked for (the SDP's video offering it, or --nack; the audio's
    /// offer is not taken); --batch-ms decides where given, and a run of the command line never
    /// gathers unasked.
    func testOnlyARecordersCameraGathersByDefault() throws {
        func sdp(_ nackOn: String) throws -> SessionDescription {
            try SessionDescription(parsing: """
                m=audio 5000 RTP/AVPF 111
                a=rtpmap:111 opus/48000/2
                \(nackOn == "audio" ? "a=rtcp-fb:111 nack" : "")
                m=video 5002 RTP/AVPF 96
                a=rtpmap:96 H264/90000
                \(nackOn == "video" ? "a=rtcp-fb:96 nack" : "")
                """)
        }
        func gather(_ arguments: [String], supervised: Bool, overTCP: Bool = true, buffer: Int = 0, nackOn: String = "") throws -> Int {
            var options = try Options(arguments: ["rtsp://127.0.0.1/cam"] + arguments)
            if supervised { options.supervised = Options.Supervised(stop: StopRequest(), inbox: nil) }
            return options.gatherMilliseconds(overTCP: overTCP, receiveBufferBytes: buffer, sdps: [try sdp(nackOn)])
        }
        XCTAssertEqual(try gather(["--mp4", "x.mp4"], supervised: true), 100)
        XCTAssertEqual(try gather(["--mp4", "x.mp4"], supervised: true, overTCP: false, buffer: 212_992), 0, "a small UDP buffer would overflow")
        XCTAssertEqual(try gather(["--mp4", "x.mp4"], supervised: true, overTCP: false, buffer: 8 << 20), 100)
        XCTAssertEqual(try gather(["--mp4", "x.mp4"], supervised: true, overTCP: false, buffer: 8 << 20, nackOn: "video"), 0, "NACK wants a turn soon")
        XCTAssertEqual(try gather(["--mp4", "x.mp4"], supervised: true, overTCP: false, buffer: 8 << 20, nackOn: "audio"), 100,
                       "rtprecv asks for the video's retransmissions alone")
        XCTAssertEqual(try gather(["--mp4", "x.mp4", "--nack"], supervised: true, overTCP: false, buffer: 8 << 20), 0)
        XCTAssertEqual(try gather(["--mp4", "x.mp4"], supervised: false), 0)
        XCTAssertEqual(try gather(["--out", "-"], supervised: true), 0, "standard output is read live")
        XCTAssertEqual(try gather(["--rtmp", "rtmp://127.0.0.1/live/x"], supervised: true), 0, "so is RTMP")
        XCTAssertEqual(try gather(["--mp4", "x.mp4", "--batch-ms", "0"], supervised: true), 0)
        XCTAssertEqual(try gather(["--mp4", "x.mp4", "--batch-ms", "30"], supervised: false, overTCP: false), 30)
    }
}
