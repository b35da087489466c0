// Minimal, dependency-free archive writers for the deployment artifacts: ZIP (the Functions
// package and the Windows relay archive) and tar.gz (the Linux relay archive). Deterministic:
// fixed timestamps and owners, entries in the order given, so a rebuild of the same sources
// gives the same bytes. Node's zlib does the compression and the CRC.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { crc32, deflateRawSync, gzipSync } from "node:zlib";

/** @typedef {{ name: string, data: Buffer, mode?: number }} Entry  name uses "/" separators */

// 1980-01-01 00:00 in DOS date/time, the earliest ZIP can express.
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

/** @param {Entry[]} entries */
export function zipBuffer(entries) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const { name, data, mode = 0o644 } of entries) {
    const nameBytes = Buffer.from(name, "utf8");
    const deflated = deflateRawSync(data, { level: 9 });
    const useDeflate = deflated.length < data.length;
    const body = useDeflate ? deflated : data;
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed: 2.0
    // flags (UTF-8 names), method, time, date, CRC, sizes, name length: same in both headers
    const common = (h, at) => {
      h.writeUInt16LE(0x0800, at);
      h.writeUInt16LE(useDeflate ? 8 : 0, at + 2);
      h.writeUInt16LE(DOS_TIME, at + 4);
      h.writeUInt16LE(DOS_DATE, at + 6);
      h.writeUInt32LE(crc, at + 8);
      h.writeUInt32LE(body.length, at + 12);
      h.writeUInt32LE(data.length, at + 16);
      h.writeUInt16LE(nameBytes.length, at + 20);
    };
    common(local, 6);
    local.writeUInt16LE(0, 28);
    locals.push(local, nameBytes, body);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix, so unzip keeps the mode bits
    central.writeUInt16LE(20, 6);
    common(central, 8);
    central.writeUInt16LE(0, 30); // extra
    central.writeUInt16LE(0, 32); // comment
    central.writeUInt16LE(0, 34); // disk
    central.writeUInt16LE(0, 36); // internal attributes
    central.writeUInt32LE(((0o100000 | mode) << 16) >>> 0, 38); // regular file + mode
    central.writeUInt32LE(offset, 42);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + body.length;
    if (offset > 0xffffffff) throw new Error("zip: archive over 4 GiB needs ZIP64, not supported");
  }
  const centralSize = centrals.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...centrals, end]);
}

/** ustar archive, gzip-compressed. @param {Entry[]} entries */
export function tarGzBuffer(entries) {
  const blocks = [];
  for (const { name, data, mode = 0o644 } of entries) {
    if (Buffer.byteLength(name) > 100) throw new Error(`tar: name longer than 100 bytes: ${name}`);
    const header = Buffer.alloc(512);
    const field = (text, at, len) => header.write(text, at, len, "utf8");
    const octal = (n, at, len) => field(`${n.toString(8).padStart(len - 1, "0")}\0`, at, len);
    field(name, 0, 100);
    octal(mode, 100, 8);
    octal(0, 108, 8); // uid
    octal(0, 116, 8); // gid
    octal(data.length, 124, 12);
    octal(0, 136, 12); // mtime
    header.fill(" ", 148, 156); // checksum is computed with its own field as spaces
    field("0", 156, 1); // regular file
    field("ustar\0", 257, 6);
    field("00", 263, 2);
    field("root", 265, 32);
    field("root", 297, 32);
    let sum = 0;
    for (const byte of header) sum += byte;
    field(`${sum.toString(8).padStart(6, "0")}\0 `, 148, 8);
    blocks.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024)); // two zero blocks end the archive
  return gzipSync(Buffer.concat(blocks), { level: 9 });
}

/** @param {string} path @param {Entry[]} entries */
export function writeZip(path, entries) {
  writeFileSync(path, zipBuffer(entries));
}

/** @param {string} path @param {Entry[]} entries */
export function writeTarGz(path, entries) {
  writeFileSync(path, tarGzBuffer(entries));
}

/** Files of a folder as entries, names relative to `base` with "/", executable bit kept. */
export function entriesOf(dir, base = dir) {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((d) => {
      const path = join(dir, d.name);
      if (d.isDirectory()) return entriesOf(path, base);
      const mode = statSync(path).mode & 0o111 ? 0o755 : 0o644;
      return [{ name: relative(base, path).split(sep).join("/"), data: readFileSync(path), mode }];
    });
}
