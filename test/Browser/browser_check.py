"""Loads an --export-report page in headless Chromium and checks that it
rendered: no console messages, the figures' elements present in the DOM
after its script ran (in the counts given), and a screenshot that is not
blank.

Usage: browser_check.py CHROMIUM report.html WORKDIR NTASKS NPOINTS
"""
import os
import re
import struct
import subprocess
import sys
import zlib

chromium, page, work, ntasks, npoints = sys.argv[1:6]
os.makedirs(work, exist_ok=True)
env = dict(os.environ, HOME=work)
# Under `make sanitize-suite` the tests preload the ASan runtime; the
# browser is not ours.
env.pop("LD_PRELOAD", None)
base = [chromium, "--headless", "--no-sandbox", "--disable-gpu",
        "--no-first-run", "--hide-scrollbars", "--user-data-dir=" + os.path.join(work, "profile"),
        "--enable-logging=stderr", "--v=0", "--window-size=1100,1500"]
url = "file://" + os.path.abspath(page)
dom = subprocess.run(base + ["--dump-dom", url], capture_output=True, text=True,
                     timeout=120, env=env)
assert dom.returncode == 0, dom.stderr[-2000:]
console = [l for l in dom.stderr.splitlines() if ":CONSOLE" in l]
assert not console, "console messages:\n" + "\n".join(console)
html = dom.stdout
counts = {
    "svg": len(re.findall(r"<svg[ >]", html)),
    "task": len(re.findall(r'<rect class="task"', html)),
    "frontier-point": len(re.findall(r'<circle class="frontier-point"', html)),
    "plan": len(re.findall(r'class="plan"', html)),
}
assert counts["svg"] == 3, counts
assert counts["task"] == int(ntasks), counts
assert counts["frontier-point"] == int(npoints), counts
assert counts["plan"] == 1, counts
# The script ran: it attached a read-out to every titled element; the
# read-out paragraph is in the DOM (empty until hovered).
assert 'id="readout"' in html

shot = os.path.join(work, "report.png")
r = subprocess.run(base + ["--screenshot=" + shot, url], capture_output=True,
                   text=True, timeout=120, env=env)
assert r.returncode == 0 and os.path.exists(shot), r.stderr[-2000:]


def pixels(path):
    """Decodes an 8-bit RGB/RGBA PNG (what Chromium writes) to rows."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


w, h, bpp, rows = pixels(shot)
colours, ink = set(), 0
for y in range(0, h, 3):
    row = rows[y]
    for x in range(0, w, 3):
        px = row[x * bpp:x * bpp + 3]
        colours.add(px)
        ink += px != b"\xff\xff\xff"
samples = ((h + 2) // 3) * ((w + 2) // 3)
assert len(colours) > 50, f"only {len(colours)} colours: blank?"
assert ink > 0.05 * samples, f"only {ink} of {samples} samples are not white"
print(f"rendered: {counts['svg']} figures, {counts['task']} tasks, "
      f"{counts['frontier-point']} frontier points; screenshot {w}x{h}, "
      f"{len(colours)} colours, {100 * ink / samples:.0f} % ink")
