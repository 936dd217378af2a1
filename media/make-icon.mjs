#!/usr/bin/env node
// Draws media/icon.png (128x128, RGBA): a rounded tile with a "bus" — one horizontal line that a
// publisher node feeds and three subscriber nodes hang from, one of them in the warning colour (a
// leaked listener). Plain Node (zlib), no image tools, so it regenerates identically anywhere:
//   node media/make-icon.mjs
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';

const SIZE = 128;
const SS = 4; // supersampling per axis, for smooth edges

const BG = [30, 41, 59];
const LINE = [94, 234, 212];
const NODE = [226, 232, 240];
const WARN = [251, 146, 60];

/** Shapes in icon coordinates (0..128); later shapes paint over earlier ones. */
const shapes = [
  { kind: 'roundRect', x0: 4, y0: 4, x1: 124, y1: 124, r: 24, color: BG },
  { kind: 'segment', ax: 22, ay: 52, bx: 106, by: 52, w: 7, color: LINE }, // the bus
  { kind: 'segment', ax: 36, ay: 52, bx: 36, by: 92, w: 5, color: LINE },
  { kind: 'segment', ax: 64, ay: 52, bx: 64, by: 92, w: 5, color: LINE },
  { kind: 'segment', ax: 92, ay: 52, bx: 92, by: 92, w: 5, color: LINE },
  { kind: 'segment', ax: 64, ay: 22, bx: 64, by: 52, w: 5, color: LINE },
  { kind: 'circle', cx: 64, cy: 24, r: 11, color: NODE }, // publisher
  { kind: 'circle', cx: 36, cy: 96, r: 11, color: NODE },
  { kind: 'circle', cx: 64, cy: 96, r: 11, color: NODE },
  { kind: 'circle', cx: 92, cy: 96, r: 11, color: WARN }, // the leak
];

function inside(s, x, y) {
  switch (s.kind) {
    case 'circle':
      return (x - s.cx) ** 2 + (y - s.cy) ** 2 <= s.r ** 2;
    case 'segment': {
      const dx = s.bx - s.ax,
        dy = s.by - s.ay;
      const t = Math.max(0, Math.min(1, ((x - s.ax) * dx + (y - s.ay) * dy) / (dx * dx + dy * dy)));
      return (x - s.ax - t * dx) ** 2 + (y - s.ay - t * dy) ** 2 <= (s.w / 2) ** 2;
    }
    case 'roundRect': {
      const cx = Math.max(s.x0 + s.r, Math.min(s.x1 - s.r, x));
      const cy = Math.max(s.y0 + s.r, Math.min(s.y1 - s.r, y));
      return x >= s.x0 && x <= s.x1 && y >= s.y0 && y <= s.y1 && (x - cx) ** 2 + (y - cy) ** 2 <= s.r ** 2;
    }
    default:
      throw new TypeError(`unknown shape ${s.kind}`);
  }
}

const raw = Buffer.alloc(SIZE * (1 + SIZE * 4)); // each row: filter byte 0, then RGBA
for (let py = 0; py < SIZE; py++) {
  raw[py * (1 + SIZE * 4)] = 0;
  for (let px = 0; px < SIZE; px++) {
    let r = 0,
      g = 0,
      b = 0,
      a = 0;
    for (let sy = 0; sy < SS; sy++) {
      for (let sx = 0; sx < SS; sx++) {
        const x = px + (sx + 0.5) / SS,
          y = py + (sy + 0.5) / SS;
        let color;
        for (const s of shapes) if (inside(s, x, y)) color = s.color;
        if (color) {
          r += color[0];
          g += color[1];
          b += color[2];
          a += 1;
        }
      }
    }
    const o = py * (1 + SIZE * 4) + 1 + px * 4;
    raw[o] = a ? Math.round(r / a) : 0;
    raw[o + 1] = a ? Math.round(g / a) : 0;
    raw[o + 2] = a ? Math.round(b / a) : 0;
    raw[o + 3] = Math.round((255 * a) / (SS * SS));
  }
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const byte of buf) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

const ihdr = Buffer.alloc(13);
ihdr.writeUInt32BE(SIZE, 0);
ihdr.writeUInt32BE(SIZE, 4);
ihdr[8] = 8; // bit depth
ihdr[9] = 6; // colour type RGBA
const png = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  chunk('IHDR', ihdr),
  chunk('IDAT', deflateSync(raw, { level: 9 })),
  chunk('IEND', Buffer.alloc(0)),
]);
const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'icon.png');
writeFileSync(out, png);
console.log(`wrote ${out} (${png.length} bytes)`);
