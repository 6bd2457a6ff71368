/**
 * Draws the app icon (a keyhole on a rounded square) as a 512×512 PNG:
 * `node --import tsx desktop/main/make-icon.ts`. The output is committed; electron-builder makes
 * the platform formats (.icns, .ico) from it.
 */
import { writeFileSync } from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';

const SIZE = 512;

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

function inRoundedSquare(x: number, y: number): boolean {
  const r = 96;
  const m = 16;
  const cx = Math.min(Math.max(x, m + r), SIZE - m - r);
  const cy = Math.min(Math.max(y, m + r), SIZE - m - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r && x >= m && y >= m && x < SIZE - m && y < SIZE - m;
}

function inKeyhole(x: number, y: number): boolean {
  const circle = (x - 256) ** 2 + (y - 210) ** 2 <= 72 ** 2;
  const t = (y - 230) / (400 - 230);
  const half = 34 + t * 30;
  const stem = y >= 230 && y <= 400 && Math.abs(x - 256) <= half;
  return circle || stem;
}

export function iconPng(): Buffer {
  const rows: Buffer[] = [];
  for (let y = 0; y < SIZE; y++) {
    const row = Buffer.alloc(1 + SIZE * 4);
    for (let x = 0; x < SIZE; x++) {
      const o = 1 + x * 4;
      if (!inRoundedSquare(x, y)) continue;
      const [r, g, b] = inKeyhole(x, y) ? [245, 247, 250] : [28, 61, 110];
      row[o] = r;
      row[o + 1] = g;
      row[o + 2] = b;
      row[o + 3] = 255;
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

if (process.argv[1]?.endsWith('make-icon.ts')) {
  writeFileSync(new URL('./assets/icon.png', import.meta.url), iconPng());
}
