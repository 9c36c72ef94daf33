// Public DNS cannot run here, so custom-domain verification (issue 17) is tried against this: an
// authoritative server on 127.0.0.1 speaking DNS's own wire format over UDP and TCP, which
// node's resolver (c-ares) queries exactly as it would query a real one through `DNS_SERVERS`.
import { createSocket, type RemoteInfo, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server, type Socket as TcpSocket } from 'node:net';
import dnsPacket, { type Answer, type DecodedPacket, type Packet } from 'dns-packet';
import { DnsZone, type DnsFault, type DnsRecord, type DnsZoneData } from './dnsZone.ts';

export type { DnsFault, DnsRecord, DnsZoneData } from './dnsZone.ts';

export interface LocalDnsOptions {
  /** 0 or absent picks a port free for both UDP and TCP. */
  port?: number;
  zone?: DnsZoneData;
}

export interface LocalDns {
  /** `127.0.0.1:<port>`, as `DNS_SERVERS` and `Resolver.setServers` take it. */
  server: string;
  port: number;
  /** Replaces every record of `name` (any case, trailing dot or not); an empty list removes it. */
  setRecords(name: string, records: DnsRecord[]): void;
  remove(name: string): void;
  /** Every question about `name` fails this way from now on, whatever its records; null stops it. */
  fail(name: string, fault: DnsFault | null): void;
  /** Every question received, oldest first, as `<udp|tcp> <TYPE> <lower-case name>`. */
  queries(): string[];
  /** Forgets the questions received so far (the zone and faults stay). */
  clear(): void;
  stop(): Promise<void>;
}

// A UDP answer larger than the asker can take is cut to its header and question with TC set, and
// the asker asks again over TCP (RFC 1035 §4.2.1, RFC 7766). Without EDNS the limit is 512
// bytes; with it, the size the asker offers, never more than 1232 (the DNS Flag Day 2020 figure,
// BIND's default max-udp-size), so that an answer that would be fragmented goes by TCP instead.
const classicUdpBytes = 512;
const maxUdpBytes = 1232;
/** TCP's two-byte length prefix; past it, TC is the only honest answer there too. */
const maxTcpBytes = 65_535;
/** A free port must be free for UDP and TCP alike; a few tries find one. */
const bindAttempts = 10;

const rcodes = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;
type Rcode = keyof typeof rcodes;
/** The header's opcode (bits 11 to 14 of the flags); 0 is a standard query. */
const opcodeBits = 0xf << 11;

/**
 * Starts the server. It answers only what it holds (it never recurses), with the authoritative
 * flag set. A name with a fault answers SERVFAIL or REFUSED, or nothing at all (`timeout`: the
 * asker's own timeout ends the wait, as when a server is unreachable).
 */
export async function startLocalDns(options: LocalDnsOptions = {}): Promise<LocalDns> {
  const zone = new DnsZone(options.zone);
  const received: string[] = [];
  const { udp, tcp, port } = await bindBoth(options.port ?? 0);
  const connections = new Set<TcpSocket>();

  function respond(message: Buffer, transport: 'udp' | 'tcp'): Buffer | null {
    // Not a DNS query (decode throws, or an answer came in): nothing to answer, as servers drop them.
    const query: DecodedPacket = dnsPacket.decode(message);
    if (query.type !== 'query') return null;
    const edns = query.additionals?.find((record): record is Extract<Answer, { type: 'OPT' }> => record.type === 'OPT');
    const reply = (rcode: Rcode, answers: Answer[] = [], truncated = false): Packet => ({
      type: 'response',
      id: query.id,
      // The opcode and RD are echoed; RA stays clear, as an authoritative-only server's does.
      flags:
        dnsPacket.AUTHORITATIVE_ANSWER |
        ((query.flags ?? 0) & (opcodeBits | dnsPacket.RECURSION_DESIRED)) |
        (truncated ? dnsPacket.TRUNCATED_RESPONSE : 0) |
        rcodes[rcode],
      questions: query.questions ?? [],
      answers,
      // RFC 6891 §7: a server that understands EDNS says so in every answer to an EDNS query.
      additionals: edns
        ? [{ type: 'OPT', name: '.', udpPayloadSize: maxUdpBytes, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }]
        : [],
    });
    const questions = query.questions ?? [];
    if (questions.length !== 1) return dnsPacket.encode(reply('FORMERR'));
    if ((query.flags ?? 0) & opcodeBits) return dnsPacket.encode(reply('NOTIMP'));
    const question = questions[0]!;
    received.push(`${transport} ${question.type} ${question.name.toLowerCase().replace(/\.$/, '')}`);

    const fault = zone.faultOf(question.name);
    if (fault === 'timeout') return null;
    if (fault) return dnsPacket.encode(reply(fault === 'servfail' ? 'SERVFAIL' : 'REFUSED'));
    // Authoritative for IN only: a CHAOS question (version.bind and the like) is not ours.
    if ((question.class ?? 'IN') !== 'IN') return dnsPacket.encode(reply('REFUSED'));

    const { rcode, answers } = zone.answer(question.name, question.type);
    const full = dnsPacket.encode(reply(rcode, answers));
    const udpLimit = edns ? Math.min(Math.max(edns.udpPayloadSize, classicUdpBytes), maxUdpBytes) : classicUdpBytes;
    return full.length <= (transport === 'tcp' ? maxTcpBytes : udpLimit) ? full : dnsPacket.encode(reply(rcode, [], true));
  }

  /** A message this server cannot make sense of is dropped: `npm start` must not fall over on one. */
  function answerTo(message: Buffer, transport: 'udp' | 'tcp'): Buffer | null {
    try {
      return respond(message, transport);
    } catch {
      return null;
    }
  }

  // Errors of sends come to their callbacks; anything else a socket reports is no reason to stop.
  udp.on('error', () => undefined);
  udp.on('message', (message: Buffer, peer: RemoteInfo) => {
    const answer = answerTo(message, 'udp');
    // A send that fails (the asker gone) is the asker's loss, as for any UDP server.
    if (answer) udp.send(answer, peer.port, peer.address, () => undefined);
  });

  // Over TCP each message is prefixed by its length in two bytes, and one connection may carry
  // several questions, even pipelined before the first is answered (RFC 7766 §6.2.1).
  tcp.on('connection', (socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    socket.on('error', () => socket.destroy());
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        const message = pending.subarray(2, 2 + pending.readUInt16BE(0));
        pending = pending.subarray(2 + message.length);
        const answer = answerTo(message, 'tcp');
        if (answer) {
          const length = Buffer.alloc(2);
          length.writeUInt16BE(answer.length);
          socket.write(Buffer.concat([length, answer]));
        }
      }
    });
  });

  return {
    server: `127.0.0.1:${port}`,
    port,
    setRecords: (name, records) => zone.set(name, records),
    remove: (name) => zone.remove(name),
    fail: (name, fault) => zone.fail(name, fault),
    queries: () => [...received],
    clear: () => {
      received.length = 0;
    },
    stop: async () => {
      for (const socket of connections) socket.destroy();
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => tcp.close(() => resolve())),
      ]);
    },
  };
}

/** UDP and TCP on one port of 127.0.0.1: `port`, or a free one (0). */
async function bindBoth(port: number): Promise<{ udp: UdpSocket; tcp: Server; port: number }> {
  for (let attempt = 1; ; attempt++) {
    const tcp = createServer();
    await listen(tcp, port);
    const chosen = (tcp.address() as { port: number }).port;
    const udp = createSocket('udp4');
    try {
      await bindUdp(udp, chosen);
      return { udp, tcp, port: chosen };
    } catch (error) {
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
      // A port given is the caller's to fix; a free TCP port whose UDP twin is taken is retried.
      if (port !== 0 || attempt >= bindAttempts) throw error;
    }
  }
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function bindUdp(socket: UdpSocket, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, '127.0.0.1', () => {
      socket.off('error', reject);
      resolve();
    });
  });
}
