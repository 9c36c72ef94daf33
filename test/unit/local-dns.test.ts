import { createSocket } from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import { connect } from 'node:net';
import dnsPacket, { type DecodedPacket, type Packet } from 'dns-packet';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startLocalDns, type LocalDns } from '../../local/dns.ts';

// The local DNS server on the wire: raw messages built with dns-packet, so what is checked is the
// bytes a real resolver would get (flags, sections, truncation, TCP framing), and node's own
// resolver for what it makes of them.
let dns: LocalDns;
let nextId = 1;

beforeAll(async () => {
  dns = await startLocalDns({
    zone: {
      'www.example': [
        { type: 'A', data: '192.0.2.1' },
        { type: 'A', data: '192.0.2.2' },
        { type: 'AAAA', data: '2001:db8::1' },
      ],
      'alias.example': [{ type: 'CNAME', data: 'www.example' }],
    },
  });
});
afterAll(() => dns.stop());
beforeEach(() => dns.clear());

function query(name: string, type: 'TXT' | 'A' | 'AAAA' | 'CNAME', extra: Partial<Packet> = {}): Packet {
  return { type: 'query', id: nextId++, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type, name, class: 'IN' }], ...extra };
}

const edns = (udpPayloadSize: number): Partial<Packet> => ({
  additionals: [{ type: 'OPT', name: '.', udpPayloadSize, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }],
});

async function overUdp(message: Packet | Buffer): Promise<{ reply: DecodedPacket & { rcode?: string }; bytes: number }> {
  const socket = createSocket('udp4');
  try {
    const answer = new Promise<Buffer>((resolve) => socket.once('message', resolve));
    await new Promise<void>((resolve) =>
      socket.send(Buffer.isBuffer(message) ? message : dnsPacket.encode(message), dns.port, '127.0.0.1', () => resolve()),
    );
    const bytes = await answer;
    return { reply: dnsPacket.decode(bytes), bytes: bytes.length };
  } finally {
    socket.close();
  }
}

/** Sends `messages` in one TCP write (pipelined) and reads as many answers back. */
async function overTcp(messages: Packet[], chunks = 1): Promise<Array<DecodedPacket & { rcode?: string }>> {
  const socket = connect(dns.port, '127.0.0.1');
  try {
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const framed = Buffer.concat(messages.map((message) => dnsPacket.streamEncode(message)));
    const size = Math.ceil(framed.length / chunks);
    const replies: Array<DecodedPacket & { rcode?: string }> = [];
    let pending = Buffer.alloc(0);
    const done = new Promise<void>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
          replies.push(dnsPacket.decode(pending.subarray(2, 2 + pending.readUInt16BE(0))));
          pending = pending.subarray(2 + pending.readUInt16BE(0));
        }
        if (replies.length === messages.length) resolve();
      });
    });
    for (let offset = 0; offset < framed.length; offset += size) socket.write(framed.subarray(offset, offset + size));
    await done;
    return replies;
  } finally {
    socket.destroy();
  }
}

function resolverFor(server = dns.server): Resolver {
  const resolver = new Resolver({ timeout: 500, tries: 1 });
  resolver.setServers([server]);
  return resolver;
}

describe('answers', () => {
  it('authoritatively, echoing the id, question and RD, with RA clear', async () => {
    dns.setRecords('echo.example', [{ type: 'TXT', data: 'v=1' }]);
    const asked = query('Echo.Example', 'TXT');
    const { reply } = await overUdp(asked);
    expect(reply).toMatchObject({
      id: asked.id,
      type: 'response',
      flag_aa: true,
      flag_rd: true,
      flag_ra: false,
      flag_tc: false,
      rcode: 'NOERROR',
    });
    expect(reply.questions).toEqual([{ name: 'Echo.Example', type: 'TXT', class: 'IN' }]);
    expect(reply.answers).toMatchObject([{ name: 'Echo.Example', type: 'TXT', ttl: 60, data: [Buffer.from('v=1')] }]);
    expect(reply.additionals).toEqual([]);
  });

  it('A and AAAA records to node’s resolver', async () => {
    const resolver = resolverFor();
    expect((await resolver.resolve4('www.example')).sort()).toEqual(['192.0.2.1', '192.0.2.2']);
    expect(await resolver.resolve6('WWW.example.')).toEqual(['2001:db8::1']);
    expect(dns.queries()).toEqual(['udp A www.example', 'udp AAAA www.example']);
  });

  it('a CNAME, followed inside the zone', async () => {
    const resolver = resolverFor();
    expect((await resolver.resolve4('alias.example')).sort()).toEqual(['192.0.2.1', '192.0.2.2']);
    expect(await resolver.resolveCname('alias.example')).toEqual(['www.example']);
    const { reply } = await overUdp(query('alias.example', 'AAAA'));
    expect(reply.answers?.map((answer) => [answer.name, answer.type, (answer as { data: unknown }).data])).toEqual([
      ['alias.example', 'CNAME', 'www.example'],
      ['www.example', 'AAAA', '2001:db8::1'],
    ]);
  });

  it('a CNAME to a name the zone does not hold with NXDOMAIN for the target, and a loop with what it has', async () => {
    dns.setRecords('dangling.example', [{ type: 'CNAME', data: 'gone.example' }]);
    const dangling = (await overUdp(query('dangling.example', 'TXT'))).reply;
    expect(dangling.rcode).toBe('NXDOMAIN');
    expect(dangling.answers).toMatchObject([{ type: 'CNAME', data: 'gone.example' }]);
    dns.setRecords('loop-a.example', [{ type: 'CNAME', data: 'loop-b.example' }]);
    dns.setRecords('loop-b.example', [{ type: 'CNAME', data: 'loop-a.example' }]);
    const loop = (await overUdp(query('loop-a.example', 'TXT'))).reply;
    expect(loop.rcode).toBe('NOERROR');
    expect(loop.answers).toHaveLength(8);
  });

  it('NXDOMAIN for an unknown name, NODATA for a known name without the type or above a known name', async () => {
    expect((await overUdp(query('nothing.example', 'TXT'))).reply).toMatchObject({ rcode: 'NXDOMAIN', answers: [] });
    expect((await overUdp(query('www.example', 'TXT'))).reply).toMatchObject({ rcode: 'NOERROR', answers: [] });
    dns.setRecords('_hushlink-challenge.deep.example', [{ type: 'TXT', data: 'x' }]);
    expect((await overUdp(query('deep.example', 'A'))).reply).toMatchObject({ rcode: 'NOERROR', answers: [] });
    expect((await overUdp(query('eep.example', 'A'))).reply).toMatchObject({ rcode: 'NXDOMAIN' });
  });

  it('FORMERR without exactly one question, NOTIMP for another opcode, REFUSED for another class', async () => {
    expect((await overUdp({ type: 'query', id: 7, questions: [] })).reply).toMatchObject({ id: 7, rcode: 'FORMERR' });
    const two = query('www.example', 'A');
    two.questions!.push({ type: 'AAAA', name: 'www.example' });
    expect((await overUdp(two)).reply.rcode).toBe('FORMERR');
    // Opcode 2 (STATUS) in bits 11–14.
    expect((await overUdp(query('www.example', 'A', { flags: 2 << 11 }))).reply.rcode).toBe('NOTIMP');
    const chaos = query('version.bind', 'TXT');
    chaos.questions![0]!.class = 'CH';
    expect((await overUdp(chaos)).reply.rcode).toBe('REFUSED');
  });

  it('drops what is not a DNS query, and keeps answering', async () => {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.send(Buffer.from('not dns'), dns.port, '127.0.0.1', () => resolve()));
    socket.close();
    expect((await overUdp(query('www.example', 'A'))).reply.answers).toHaveLength(2);
  });
});

describe('truncation', () => {
  const big = [`v=spf1 ${'ip4:192.0.2.1 '.repeat(30)}-all`, 'y'.repeat(250)];

  beforeEach(() =>
    dns.setRecords(
      'big.example',
      big.map((data) => ({ type: 'TXT' as const, data })),
    ),
  );

  it('over 512 bytes without EDNS: TC set, the question only, and the whole answer over TCP', async () => {
    const { reply, bytes } = await overUdp(query('big.example', 'TXT'));
    expect(reply).toMatchObject({ flag_tc: true, flag_aa: true, rcode: 'NOERROR', answers: [] });
    expect(reply.questions).toEqual([{ name: 'big.example', type: 'TXT', class: 'IN' }]);
    expect(bytes).toBeLessThanOrEqual(512);
    const [whole] = await overTcp([query('big.example', 'TXT')]);
    expect(whole).toMatchObject({ flag_tc: false, rcode: 'NOERROR' });
    expect(whole!.answers?.map((answer) => Buffer.concat((answer as { data: Buffer[] }).data).toString())).toEqual(big);
    expect(dns.queries()).toEqual(['udp TXT big.example', 'tcp TXT big.example']);
  });

  it('with EDNS, up to the size the asker offers (at most 1232 bytes), saying it speaks EDNS', async () => {
    const offered = await overUdp(query('big.example', 'TXT', edns(1232)));
    expect(offered.reply).toMatchObject({ flag_tc: false });
    expect(offered.reply.answers).toHaveLength(2);
    expect(offered.bytes).toBeGreaterThan(512);
    expect(offered.reply.additionals).toMatchObject([{ type: 'OPT', udpPayloadSize: 1232 }]);
    // An offer below 512 means 512; one above 1232 means 1232.
    dns.setRecords('mid.example', [{ type: 'TXT', data: 'm'.repeat(300) }]);
    expect((await overUdp(query('mid.example', 'TXT', edns(256)))).reply).toMatchObject({ flag_tc: false, answers: [{ type: 'TXT' }] });
    expect((await overUdp(query('big.example', 'TXT', edns(256)))).reply.flag_tc).toBe(true);
    dns.setRecords(
      'bigger.example',
      Array.from({ length: 6 }, (_, index) => ({ type: 'TXT' as const, data: `${index}${'z'.repeat(240)}` })),
    );
    const capped = await overUdp(query('bigger.example', 'TXT', edns(4096)));
    expect(capped.reply).toMatchObject({ flag_tc: true, answers: [] });
    expect(capped.reply.additionals).toMatchObject([{ type: 'OPT' }]);
  });

  it('node’s resolver asks again over TCP and gets every record', async () => {
    const records = await resolverFor().resolveTxt('big.example');
    expect(records.map((strings) => strings.join(''))).toEqual(big);
    expect(dns.queries()).toEqual(['udp TXT big.example', 'tcp TXT big.example']);
  });

  it('TCP takes several questions on one connection, pipelined or in pieces', async () => {
    const asked = [query('www.example', 'A'), query('big.example', 'TXT'), query('nothing.example', 'TXT')];
    for (const chunks of [1, 7]) {
      const replies = await overTcp(asked, chunks);
      expect(replies.map((reply) => [reply.id, reply.rcode, reply.answers?.length])).toEqual([
        [asked[0]!.id, 'NOERROR', 2],
        [asked[1]!.id, 'NOERROR', 2],
        [asked[2]!.id, 'NXDOMAIN', 0],
      ]);
    }
  });
});

describe('faults', () => {
  it('SERVFAIL and REFUSED over UDP and TCP, whatever the name holds, until cleared', async () => {
    dns.setRecords('faulty.example', [{ type: 'TXT', data: 'here' }]);
    dns.fail('FAULTY.example.', 'servfail');
    expect((await overUdp(query('faulty.example', 'TXT'))).reply).toMatchObject({ rcode: 'SERVFAIL', answers: [] });
    dns.fail('faulty.example', 'refused');
    expect((await overTcp([query('faulty.example', 'A')]))[0]).toMatchObject({ rcode: 'REFUSED', answers: [] });
    dns.fail('faulty.example', null);
    expect((await overUdp(query('faulty.example', 'TXT'))).reply).toMatchObject({ rcode: 'NOERROR', answers: [{ type: 'TXT' }] });
  });

  it('timeout: no answer at all, so the asker’s own timeout ends it', async () => {
    dns.fail('silent.example', 'timeout');
    await expect(resolverFor().resolveTxt('silent.example')).rejects.toMatchObject({ code: 'ETIMEOUT' });
    expect(dns.queries()).toEqual(['udp TXT silent.example']);
  });
});

describe('the zone', () => {
  it('refuses what DNS cannot carry', () => {
    expect(() =>
      dns.setRecords('x.example', [
        { type: 'CNAME', data: 'y.example' },
        { type: 'TXT', data: 'z' },
      ]),
    ).toThrow(/only record/);
    expect(() => dns.setRecords('x.example', [{ type: 'A', data: '2001:db8::1' }])).toThrow(/IPv4/);
    expect(() => dns.setRecords('x.example', [{ type: 'AAAA', data: '192.0.2.1' }])).toThrow(/IPv6/);
    expect(() => dns.setRecords('x.example', [{ type: 'TXT', data: ['a'.repeat(256)] }])).toThrow(/255 bytes/);
    expect(() => dns.setRecords('x.example', [{ type: 'TXT', data: [] }])).toThrow(/at least one/);
    expect(() => dns.setRecords('x.example', [{ type: 'TXT', data: 'a', ttl: -1 }])).toThrow(/TTL/);
    expect(() => dns.setRecords(`${'a'.repeat(64)}.example`, [])).toThrow(/not a domain name/);
    expect(() => dns.setRecords('a..example', [])).toThrow(/not a domain name/);
    expect(() => dns.fail('', 'timeout')).toThrow(/not a domain name/);
  });

  it('forgets a name removed, or set to no records', async () => {
    dns.setRecords('brief.example', [{ type: 'TXT', data: 'x' }]);
    dns.remove('BRIEF.example');
    expect((await overUdp(query('brief.example', 'TXT'))).reply.rcode).toBe('NXDOMAIN');
    dns.setRecords('brief.example', [{ type: 'TXT', data: 'x' }]);
    dns.setRecords('brief.example', []);
    expect((await overUdp(query('brief.example', 'TXT'))).reply.rcode).toBe('NXDOMAIN');
  });
});

describe('the server', () => {
  it('starts on a given port, and refuses one taken', async () => {
    const first = await startLocalDns({ zone: { 'port.example': [{ type: 'TXT', data: 'again' }] } });
    await expect(startLocalDns({ port: first.port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await first.stop();
    const again = await startLocalDns({ port: first.port, zone: { 'port.example': [{ type: 'TXT', data: 'again' }] } });
    try {
      expect(again.server).toBe(`127.0.0.1:${first.port}`);
      expect(await resolverFor(again.server).resolveTxt('port.example')).toEqual([['again']]);
    } finally {
      await again.stop();
    }
  });

  it('stops with a TCP connection still open', async () => {
    const other = await startLocalDns();
    const socket = connect(other.port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await other.stop();
    await closed;
  });
});
