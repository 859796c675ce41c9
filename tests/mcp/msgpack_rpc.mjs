// A minimal msgpack-RPC client for Neovim's --listen socket: what the Neovim tests need to ask
// a running Neovim (nvim_exec_lua) without starting an `nvim --remote-expr` per question.
import { connect } from 'node:net';

function encode(value, out) {
  if (value === null || value === undefined) {
    out.push(Buffer.from([0xc0]));
  } else if (typeof value === 'boolean') {
    out.push(Buffer.from([value ? 0xc3 : 0xc2]));
  } else if (typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < 2 ** 31) {
    const b = Buffer.alloc(5);
    if (value >= 0 && value < 128) return out.push(Buffer.from([value]));
    if (value < 0 && value >= -32) return out.push(Buffer.from([value & 0xff]));
    b[0] = 0xd2;
    b.writeInt32BE(value, 1);
    out.push(b);
  } else if (typeof value === 'number') {
    const b = Buffer.alloc(9);
    b[0] = 0xcb;
    b.writeDoubleBE(value, 1);
    out.push(b);
  } else if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    out.push(header(bytes.length, 0xa0, 32, 0xd9, 0xda, 0xdb), bytes);
  } else if (Array.isArray(value)) {
    out.push(header(value.length, 0x90, 16, null, 0xdc, 0xdd));
    for (const item of value) encode(item, out);
  } else if (typeof value === 'object') {
    const entries = Object.entries(value);
    out.push(header(entries.length, 0x80, 16, null, 0xde, 0xdf));
    for (const [key, item] of entries) {
      encode(key, out);
      encode(item, out);
    }
  } else {
    throw new Error(`msgpack: cannot encode a ${typeof value}`);
  }
}

// A length header: the fix form below `fixLimit`, else the 8-bit (when the type has one),
// 16-bit or 32-bit form.
function header(length, fix, fixLimit, tag8, tag16, tag32) {
  if (length < fixLimit) return Buffer.from([fix | length]);
  if (tag8 !== null && length < 256) return Buffer.from([tag8, length]);
  if (length < 65536) return Buffer.from([tag16, length >> 8, length & 0xff]);
  const b = Buffer.alloc(5);
  b[0] = tag32;
  b.writeUInt32BE(length, 1);
  return b;
}

class Incomplete extends Error {}

// Decodes one value at `pos`; returns [value, next position] or throws Incomplete. Neovim's
// handles (ext types 0-2: buffer, window, tabpage) decode as the number their data holds.
function decode(buf, pos) {
  const need = (n) => {
    if (pos + n > buf.length) throw new Incomplete();
  };
  need(1);
  const tag = buf[pos++];
  const bytes = (n) => {
    need(n);
    pos += n;
    return buf.subarray(pos - n, pos);
  };
  const uint = (n) => bytes(n).readUIntBE(0, n);
  const str = (n) => bytes(n).toString('utf8');
  const array = (n) => {
    const items = [];
    for (let i = 0; i < n; i++) {
      const [item, next] = decode(buf, pos);
      items.push(item);
      pos = next;
    }
    return items;
  };
  const map = (n) => {
    const object = {};
    for (const [key, value] of chunks(array(2 * n))) object[key] = value;
    return object;
  };
  const ext = (n) => {
    const data = bytes(n + 1).subarray(1);
    return decode(data, 0)[0];
  };
  let value;
  if (tag < 0x80) value = tag;
  else if (tag < 0x90) value = map(tag & 0x0f);
  else if (tag < 0xa0) value = array(tag & 0x0f);
  else if (tag < 0xc0) value = str(tag & 0x1f);
  else if (tag >= 0xe0) value = tag - 0x100;
  else {
    switch (tag) {
      case 0xc0: value = null; break;
      case 0xc2: value = false; break;
      case 0xc3: value = true; break;
      case 0xc4: case 0xc5: case 0xc6: value = bytes(uint(1 << (tag - 0xc4))); break;
      case 0xc7: case 0xc8: case 0xc9: value = ext(uint(1 << (tag - 0xc7))); break;
      case 0xca: value = bytes(4).readFloatBE(0); break;
      case 0xcb: value = bytes(8).readDoubleBE(0); break;
      case 0xcc: case 0xcd: case 0xce: value = uint(1 << (tag - 0xcc)); break;
      case 0xcf: value = Number(bytes(8).readBigUInt64BE(0)); break;
      case 0xd0: case 0xd1: case 0xd2: value = bytes(1 << (tag - 0xd0)).readIntBE(0, 1 << (tag - 0xd0)); break;
      case 0xd3: value = Number(bytes(8).readBigInt64BE(0)); break;
      case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8: value = ext(1 << (tag - 0xd4)); break;
      case 0xd9: case 0xda: case 0xdb: value = str(uint(1 << (tag - 0xd9))); break;
      case 0xdc: case 0xdd: value = array(uint(2 << (tag - 0xdc))); break;
      case 0xde: case 0xdf: value = map(uint(2 << (tag - 0xde))); break;
      default: throw new Error(`msgpack: unknown type 0x${tag.toString(16)}`);
    }
  }
  return [value, pos];
}

function* chunks(list) {
  for (let i = 0; i < list.length; i += 2) yield [list[i], list[i + 1]];
}

// Connects to `path`; resolves with { request(method, params), lua(code, ...args), close() }.
export function connectNeovim(path) {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    const pending = new Map();
    let nextId = 1;
    let input = Buffer.alloc(0);
    const failAll = (error) => {
      for (const { reject: fail } of pending.values()) fail(error);
      pending.clear();
    };
    socket.on('data', (chunk) => {
      input = Buffer.concat([input, chunk]);
      for (;;) {
        let message, next;
        try {
          [message, next] = decode(input, 0);
        } catch (error) {
          if (error instanceof Incomplete) return;
          socket.destroy(error);
          return;
        }
        input = input.subarray(next);
        const [kind, id, error, result] = message;
        if (kind === 0) {
          socket.write(pack([1, id, 'the test client answers no requests', null]));
        } else if (kind === 1 && pending.has(id)) {
          const waiter = pending.get(id);
          pending.delete(id);
          if (error) waiter.reject(new Error(`Neovim: ${Array.isArray(error) ? error[1] : error}`));
          else waiter.resolve(result);
        }
      }
    });
    socket.on('error', (error) => {
      failAll(error);
      reject(error);
    });
    socket.on('close', () => failAll(new Error('Neovim closed its socket')));
    const request = (method, params) =>
      new Promise((resolveRequest, rejectRequest) => {
        const id = nextId++;
        pending.set(id, { resolve: resolveRequest, reject: rejectRequest });
        socket.write(pack([0, id, method, params]));
      });
    socket.once('connect', () =>
      resolve({
        request,
        lua: (code, ...args) => request('nvim_exec_lua', [code, args]),
        close: () => socket.end(),
      }),
    );
  });
}

function pack(value) {
  const out = [];
  encode(value, out);
  return Buffer.concat(out);
}
