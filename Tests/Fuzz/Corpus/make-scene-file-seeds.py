#!/usr/bin/env python3
"""Writes the seed corpus of SceneFileFuzzer (format 3, see SceneFile.swift):
whole files of every kind, logs whole, padded and torn, and the damage the
reader must refuse. Run from this folder: python3 make-scene-file-seeds.py"""
import os, struct

MASK = (1 << 64) - 1

def checksum(data):
    h = 0xcbf29ce484222325
    full = len(data) - len(data) % 8
    for i in range(0, full, 8):
        h = ((h ^ struct.unpack_from('<Q', data, i)[0]) * 0x100000001B3) & MASK
    for b in data[full:]:
        h = ((h ^ b) * 0x100000001B3) & MASK
    return h

def s(text):
    raw = text if isinstance(text, bytes) else text.encode()
    return struct.pack('<I', len(raw)) + raw

def frame(payload):
    covered = struct.pack('<I', len(payload)) + payload
    return covered + struct.pack('<Q', checksum(covered))

def value(kind, v):
    if kind == 'bool': return b'\x00' + bytes([v])
    if kind == 'int': return b'\x01' + struct.pack('<q', v)
    if kind == 'double': return b'\x02' + struct.pack('<d', v)
    if kind == 'bits': return b'\x02' + struct.pack('<Q', v)
    return bytes([{'string': 3, 'url': 4, 'data': 5}[kind]]) + s(v)

def entries(items):
    return b''.join(s(k) + value(kind, v) for k, kind, v in items)

HEADER = b'SCNSTORE' + struct.pack('<I', 3)

def snapshot(items, generation=1, scene='main', pid=1, count=None):
    return frame(b'\x01' + struct.pack('<Q', generation) + s('00000000000000aa') + struct.pack('<i', pid)
                 + s('00000000000000bb') + s(scene) + struct.pack('<I', len(items) if count is None else count)
                 + entries(items))

def record(generation, sets=(), removed=(), pid=2):
    return frame(b'\x02' + struct.pack('<Q', generation) + struct.pack('<i', pid) + s('00000000000000cc')
                 + struct.pack('<I', len(sets)) + entries(sets) + struct.pack('<I', len(removed))
                 + b''.join(s(k) for k in removed))

def pad(data, block=4096):
    return data + bytes(-len(data) % block)

ALL = [('b', 'bool', 1), ('d', 'double', 0.1), ('i', 'int', -7), ('s', 'string', 'hé 日本'),
       ('u', 'url', 'https://example.com/a%20b?q=1#f'), ('x', 'data', b'\x00\xff\x10')]
base = HEADER + snapshot(ALL)
r2 = record(2, [('i', 'int', 8), ('n', 'string', 'new')], ['b'])
r3 = record(3, [('z', 'bool', 0)])
seeds = {
    'all-kinds': base,
    'empty-values': HEADER + snapshot([]),
    'kind-bool': HEADER + snapshot([('a', 'bool', 0), ('b', 'bool', 1)]),
    'kind-int': HEADER + snapshot([('min', 'int', -2**63), ('max', 'int', 2**63 - 1), ('zero', 'int', 0)]),
    'kind-double': HEADER + snapshot([('a', 'double', -0.0), ('b', 'double', 5e-324), ('c', 'double', 1.7976931348623157e308)]),
    'double-nan-inf': HEADER + snapshot([('i', 'double', float('inf')), ('m', 'double', float('-inf')), ('n', 'bits', 0x7FF8000000000000)]),
    'double-nan-payload': HEADER + snapshot([('n', 'bits', 0x7FF8000000000123), ('s', 'bits', 0xFFF8000000000000)]),
    'kind-data': HEADER + snapshot([('e', 'data', b''), ('x', 'data', bytes(range(256)))]),
    'kind-url': HEADER + snapshot([('u', 'url', 'file:///tmp/a%20b'), ('v', 'url', 'mailto:a@b.c')]),
    'url-unparsable': HEADER + snapshot([('u', 'url', 'http://[::1')]),
    'unicode-values': HEADER + snapshot([('k', 'string', '🧭\u200d\ufeff\u0000\n"\\')]),
    'unicode-nfc-nfd-same-key': HEADER + snapshot([('e\u0301', 'int', 1), ('\u00e9', 'int', 2)]),
    'unicode-nfc-nfd-byte-order': HEADER + snapshot([('\u00e9', 'int', 2), ('e\u0301', 'int', 1)]),
    'empty-key-and-long-key': HEADER + snapshot([('', 'int', 1), ('k' * 5000, 'int', 2)]),
    'scene-other': HEADER + snapshot([('a', 'int', 1)], scene='other'),
    'pid-negative': HEADER + snapshot([('a', 'int', 1)], pid=-5),
    'generation-max': HEADER + snapshot([('a', 'int', 1)], generation=2**63 - 1),
    'generation-out-of-range': HEADER + snapshot([('a', 'int', 1)], generation=2**64 - 1),
    'log-records': base + r2 + r3,
    'log-padded': pad(base + r2),
    'log-padded-two': pad(base + r2 + r3),
    'log-torn-tail': base + r2 + r3[:len(r3) // 2],
    'log-padded-torn': pad(base + r2 + r3[:-3]),
    'log-torn-length': base + r2 + r3[:2],
    'log-damaged-middle': base + r2[:20] + bytes([r2[20] ^ 1]) + r2[21:] + r3,
    'log-generation-gap': base + record(3, [('a', 'int', 1)]),
    'log-snapshot-twice': base + snapshot([], generation=2),
    'log-remove-missing': base + record(2, removed=['nothing']),
    'trailing-after-padding': pad(base + r2) + b'garbage',
    'bad-checksum': base[:-1] + bytes([base[-1] ^ 0x80]),
    'version-newer': b'SCNSTORE' + struct.pack('<I', 4) + base[12:],
    'version-two': b'SCNSTORE' + struct.pack('<I', 2) + base[12:],
    'version-zero': b'SCNSTORE' + struct.pack('<I', 0) + base[12:],
    'wrong-magic': b'SCNSTORF' + base[8:],
    'json-format-two': b'{"format": "scenestore.scene", "version": 2, "values": {}, "log": [\n]}\n',
    'header-only': HEADER,
    'truncated-last-byte': base[:-1],
    'truncated-in-values': base[:len(base) // 2],
    'count-past-payload': HEADER + snapshot([], count=1000000),
    'keys-out-of-order': HEADER + snapshot([('b', 'int', 1), ('a', 'int', 2)]),
    'duplicate-keys': HEADER + snapshot([('a', 'int', 1), ('a', 'int', 2)]),
    'invalid-utf8-key': HEADER + snapshot([(b'\xff', 'int', 1)]),
    'lone-surrogate-utf8': HEADER + snapshot([('k', 'string', b'\xed\xa0\x80')]),
    'unknown-tag': HEADER + frame(snapshot([])[4:-8][:-4] + struct.pack('<I', 1) + s('a') + b'\x09'),
    'bool-two': HEADER + frame(snapshot([])[4:-8][:-4] + struct.pack('<I', 1) + s('a') + b'\x00\x02'),
    'bytes-after-entries': HEADER + frame(snapshot([('a', 'int', 1)])[4:-8] + b'\x00'),
    'length-huge': HEADER + struct.pack('<I', 0xFFFFFFFF) + bytes(16),
}
folder = 'SceneFileFuzzer'
for name in os.listdir(folder):
    os.remove(os.path.join(folder, name))
for name, data in seeds.items():
    with open(os.path.join(folder, name + '.scene'), 'wb') as out:
        out.write(data)
print(len(seeds), 'seeds')
