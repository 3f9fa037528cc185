#!/usr/bin/python3
"""gstcapture.py OUT: a 720p x264 stream (6.3 Mbit/s, 30 fps, 300 frames, an IDR every 60) as GStreamer's
rtph264pay packetizes it (MTU 1400, SPS/PPS before each IDR), written as a classic pcap of
Ethernet/IPv4/UDP frames timed by the buffers' times, without a network or tcpdump. A stream with
three times the frames a byte of the 1080p capture and smaller packets: the replay benchmark's
second kind of capture. Debian's python3 with python3-gi and GStreamer's good and ugly plugins."""
import struct
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402

Gst.init(None)
pipeline = Gst.parse_launch(
    "videotestsrc num-buffers=300 pattern=smpte ! video/x-raw,format=I420,width=1280,height=720,framerate=30/1 "
    "! x264enc bitrate=6300 key-int-max=60 bframes=0 speed-preset=veryfast tune=zerolatency ! h264parse "
    "! rtph264pay config-interval=-1 mtu=1400 pt=96 ! appsink name=sink sync=false")
sink = pipeline.get_by_name("sink")
pipeline.set_state(Gst.State.PLAYING)
with open(sys.argv[1], "wb") as out:
    out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
    start = 1_700_000_000 * 10**9
    while True:
        sample = sink.emit("pull-sample")
        if sample is None:
            break
        buffer = sample.get_buffer()
        rtp = buffer.extract_dup(0, buffer.get_size())
        udp = struct.pack(">HHHH", 40000, 5004, 8 + len(rtp), 0) + rtp
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0,
                         bytes([127, 0, 0, 1]), bytes([127, 0, 0, 1])) + udp
        frame = bytes(12) + b"\x08\x00" + ip
        t = start + max(buffer.pts, 0)
        out.write(struct.pack("<IIII", t // 10**9, t % 10**9 // 1000, len(frame), len(frame)) + frame)
pipeline.set_state(Gst.State.NULL)
