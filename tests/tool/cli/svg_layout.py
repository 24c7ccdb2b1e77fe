#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""svg_layout.py FILE.svg [FILE.png]: whether every text of an SVG that
"cyclock plot" wrote stays inside the picture and clear of every other.

From the SVG's geometry: each <text>'s box is estimated from its font size
(the stylesheet's rules for its classes), its anchor and the advance widths
of DejaVu Sans, regular and bold (the font fontconfig gives "sans-serif" on
Debian, and the widest of the common ones: Liberation Sans, Arial and
Helvetica are narrower), plus 4 %; a character the table lacks counts 1 em.
Every box must lie inside the viewBox and overlap no other.

With FILE.png (the SVG rendered at its own size by rsvg-convert): its two
outermost columns and rows must be all background, so nothing drawn was cut
at an edge.

Exits 0 when all holds, else 1 with a line per fault; 2 on bad input.
"""
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

NS = "{http://www.w3.org/2000/svg}"

# DejaVu Sans 2.37's advance widths in em for U+0020..U+007E (hmtx over
# units per em, 2048), regular then bold.
REGULAR = [
    0.318, 0.401, 0.46, 0.838, 0.636, 0.95, 0.78, 0.275, 0.39, 0.39, 0.5, 0.838, 0.318,
    0.361, 0.318, 0.337, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636,
    0.636, 0.337, 0.337, 0.838, 0.838, 0.838, 0.531, 1.0, 0.684, 0.686, 0.698, 0.77,
    0.632, 0.575, 0.775, 0.752, 0.295, 0.295, 0.656, 0.557, 0.863, 0.748, 0.787, 0.603,
    0.787, 0.695, 0.635, 0.611, 0.732, 0.684, 0.989, 0.685, 0.611, 0.685, 0.39, 0.337,
    0.39, 0.838, 0.5, 0.5, 0.613, 0.635, 0.55, 0.635, 0.615, 0.352, 0.635, 0.634, 0.278,
    0.278, 0.579, 0.278, 0.974, 0.634, 0.612, 0.635, 0.635, 0.411, 0.521, 0.392, 0.634,
    0.592, 0.818, 0.592, 0.592, 0.525, 0.636, 0.337, 0.636, 0.838,
]
BOLD = [
    0.348, 0.456, 0.521, 0.838, 0.696, 1.002, 0.872, 0.306, 0.457, 0.457, 0.523, 0.838,
    0.38, 0.415, 0.38, 0.365, 0.696, 0.696, 0.696, 0.696, 0.696, 0.696, 0.696, 0.696,
    0.696, 0.696, 0.4, 0.4, 0.838, 0.838, 0.838, 0.58, 1.0, 0.774, 0.762, 0.734, 0.83,
    0.683, 0.683, 0.821, 0.837, 0.372, 0.372, 0.775, 0.637, 0.995, 0.837, 0.85, 0.733,
    0.85, 0.77, 0.72, 0.682, 0.812, 0.774, 1.103, 0.771, 0.724, 0.725, 0.457, 0.365,
    0.457, 0.838, 0.5, 0.5, 0.675, 0.716, 0.593, 0.716, 0.678, 0.435, 0.716, 0.712,
    0.343, 0.343, 0.665, 0.343, 1.042, 0.712, 0.687, 0.716, 0.716, 0.493, 0.595, 0.478,
    0.712, 0.652, 0.924, 0.645, 0.652, 0.582, 0.712, 0.365, 0.712, 0.838,
]
MARGIN = 1.04
# Heights in em: the ascender of b, d, l; of an accented capital; the
# descender (g, p, y, the underscore, parentheses).
ASCENT, ASCENT_ACCENT, DESCENT = 0.76, 0.93, 0.24
DESCENDERS = set("gjpqy(),;[]{}|_@$/Q")
FONTS = ("sans-serif", "dejavu sans")


def fail(msg):
    print(f"svg_layout: {msg}", file=sys.stderr)
    sys.exit(2)


def stylesheet(root):
    """The rules of the document's <style> as (selector, {property: value})."""
    rules = []
    for style in root.iter(NS + "style"):
        for sel, body in re.findall(r"([^{}]+)\{([^}]*)\}", style.text or ""):
            props = {}
            for decl in body.split(";"):
                if ":" in decl:
                    k, v = decl.split(":", 1)
                    props[k.strip()] = v.strip()
            for s in sel.split(","):
                rules.append((s.strip(), props))
    return rules


def text_style(rules, el):
    """font-size, font-weight, text-anchor, font-family of <text> @el: the
    type rule, then the class rules in stylesheet order, then attributes."""
    classes = (el.get("class") or "").split()
    st = {}
    for sel, props in rules:
        if sel == "text":
            st.update(props)
    for sel, props in rules:
        if sel.startswith(".") and sel[1:] in classes:
            st.update(props)
    for k in ("font-size", "font-weight", "text-anchor", "font-family"):
        if el.get(k):
            st[k] = el.get(k)
    return st


def text_width(s, size, bold):
    table = BOLD if bold else REGULAR
    em = sum(table[ord(c) - 32] if 32 <= ord(c) < 127 else 1.0 for c in s)
    return em * size * MARGIN


def text_box(rules, el):
    st = text_style(rules, el)
    family = st.get("font-family", "serif").split(",")[0].strip().strip("'\"").lower()
    if family not in FONTS:
        fail(f"no metrics for the font '{family}'")
    size = float(st.get("font-size", "16").replace("px", ""))
    bold = st.get("font-weight", "normal") in ("bold", "bolder", "600", "700", "800", "900")
    s = "".join(el.itertext())
    x, y = float(el.get("x", 0)), float(el.get("y", 0))
    w = text_width(s, size, bold)
    anchor = st.get("text-anchor", "start")
    x0 = x - w / 2 if anchor == "middle" else x - w if anchor == "end" else x
    up = ASCENT_ACCENT if any(ord(c) > 126 for c in s) else ASCENT
    down = DESCENT if any(c in DESCENDERS or ord(c) > 126 for c in s) else 0.02
    return (x0, y - up * size, x0 + w, y + down * size, s)


def check_svg(path):
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        fail(f"{path}: {e}")
    vb = [float(v) for v in (root.get("viewBox") or "").split()]
    if len(vb) != 4:
        fail(f"{path}: no viewBox")
    rules = stylesheet(root)
    boxes = [text_box(rules, el) for el in root.iter(NS + "text")]
    faults = []
    for b in boxes:
        if b[0] < vb[0] or b[1] < vb[1] or b[2] > vb[0] + vb[2] or b[3] > vb[1] + vb[3]:
            faults.append(f"'{b[4]}' runs past the picture: box ({b[0]:.1f}, {b[1]:.1f})-"
                          f"({b[2]:.1f}, {b[3]:.1f}), viewBox {' '.join(map(str, vb))}")
    order = sorted(range(len(boxes)), key=lambda i: boxes[i][0])
    for n, i in enumerate(order):
        a = boxes[i]
        for j in order[n + 1:]:
            b = boxes[j]
            if b[0] >= a[2]:
                break
            if a[1] < b[3] and b[1] < a[3]:
                faults.append(f"'{a[4]}' at ({a[0]:.1f}, {a[1]:.1f}) overlaps "
                              f"'{b[4]}' at ({b[0]:.1f}, {b[1]:.1f})")
    return faults, len(boxes)


def png_pixels(path):
    """Width, height and rows of RGBA tuples of an 8-bit RGB(A) PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path}: not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        fail(f"{path}: not an 8-bit RGB(A), non-interlaced PNG")
    bpp = 4 if ctype == 6 else 3
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for r in range(h):
        ft, line = raw[r * (stride + 1)], bytearray(raw[r * (stride + 1) + 1:(r + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if ft == 1:
                line[i] = (line[i] + a) & 255
            elif ft == 2:
                line[i] = (line[i] + b) & 255
            elif ft == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, rows, bpp


def check_png(path):
    w, h, rows, bpp = png_pixels(path)
    bg = bytes(rows[0][:bpp])
    faults = []
    edges = {"left": [(x, y) for y in range(h) for x in (0, 1)],
             "right": [(x, y) for y in range(h) for x in (w - 2, w - 1)],
             "top": [(x, y) for x in range(w) for y in (0, 1)],
             "bottom": [(x, y) for x in range(w) for y in (h - 2, h - 1)]}
    for edge, pts in edges.items():
        hit = [(x, y) for x, y in pts if bytes(rows[y][x * bpp:(x + 1) * bpp]) != bg]
        if hit:
            faults.append(f"{path}: drawn at its {edge} edge ({len(hit)} pixels, the first at "
                          f"x {hit[0][0]}, y {hit[0][1]})")
    return faults


def main(argv):
    if len(argv) not in (2, 3):
        fail("usage: svg_layout.py FILE.svg [FILE.png]")
    faults, n = check_svg(argv[1])
    if len(argv) == 3:
        faults += check_png(argv[2])
    for f in faults:
        print(f"{argv[1]}: {f}")
    if not n:
        print(f"{argv[1]}: no text at all")
        return 1
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
