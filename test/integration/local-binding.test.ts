import { createSocket } from 'node:dgram';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { startTestRuntime } from '../support/runtime.ts';

/**
 * Every port the local runtime opens is on 127.0.0.1 only (issue 26, item 6: DynamoDB Local
 * listened on every interface and takes any credentials, so anyone on the network could read the
 * table). Read from the kernel's own socket tables (/proc/net/tcp, tcp6, udp, udp6), and, where
 * this machine has an IPv4 address of its own besides loopback, by connecting to that address:
 * refused. (That address is this machine's: the kernel delivers such traffic locally.)
 */

let runtime: Runtime;
beforeAll(async () => {
  runtime = await startTestRuntime();
});
afterAll(() => runtime?.stop());

const portOf = (url: string) => Number(new URL(url).port);

/** The runtime's listening ports, by what listens there. */
function ownPorts() {
  return {
    tcp: {
      gateway: runtime.port,
      'DynamoDB Local': portOf(runtime.dynamo.endpoint),
      S3: portOf(runtime.s3.endpoint),
      Stripe: runtime.stripe.port,
      Slack: runtime.slack.port,
      'DNS (TCP)': runtime.dns.port,
    },
    udp: { 'DNS (UDP)': runtime.dns.port },
  };
}

interface SocketEntry {
  address: string;
  port: number;
  /** The kernel's TCP state: 0A is LISTEN; UDP sockets are 07. */
  state: string;
  inode: string;
}

/** The sockets of one /proc/net table, addresses decoded (IPv4-mapped IPv6 shown as IPv4). */
function socketTable(name: 'tcp' | 'tcp6' | 'udp' | 'udp6'): SocketEntry[] {
  const lines = readFileSync(`/proc/net/${name}`, 'utf8').trim().split('\n').slice(1);
  return lines.map((line) => {
    const fields = line.trim().split(/\s+/);
    const [hexAddress, hexPort] = fields[1]!.split(':') as [string, string];
    return { address: decodeAddress(hexAddress), port: parseInt(hexPort, 16), state: fields[3]!, inode: fields[9]! };
  });
}

/** /proc/net prints addresses as 32-bit words in host (little-endian) order. */
function decodeAddress(hex: string): string {
  const words = hex.match(/.{8}/g)!.map((word) => Buffer.from(word, 'hex').reverse());
  const bytes = Buffer.concat(words);
  if (bytes.length === 4) return [...bytes].join('.');
  if (bytes.subarray(0, 10).every((byte) => byte === 0) && bytes.readUInt16BE(10) === 0xffff) return [...bytes.subarray(12)].join('.');
  if (bytes.every((byte) => byte === 0)) return '::';
  const groups: string[] = [];
  for (let offset = 0; offset < 16; offset += 2) groups.push(bytes.readUInt16BE(offset).toString(16));
  return groups.join(':');
}

/** The inodes of the sockets a process holds open. */
function socketInodes(pid: string): Set<string> {
  const inodes = new Set<string>();
  let fds: string[] = [];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes; // gone, or not ours to read
  }
  for (const fd of fds) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      if (inode) inodes.add(inode);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/** The processes holding the socket `inode` (DynamoDB Local's Java holds its port). */
const processesHolding = (inode: string) => readdirSync('/proc').filter((pid) => /^\d+$/.test(pid) && socketInodes(pid).has(inode));

const listening = (protocol: 'tcp' | 'udp') =>
  [...socketTable(protocol), ...socketTable(`${protocol}6`)].filter((entry) =>
    protocol === 'tcp' ? entry.state === '0A' : entry.state === '07',
  );

/** This machine's own IPv4 addresses other than loopback. */
const ownAddresses = () =>
  Object.values(networkInterfaces())
    .flat()
    .filter((entry) => entry && entry.family === 'IPv4' && !entry.internal)
    .map((entry) => entry!.address);

describe('every local component listens on 127.0.0.1 only', () => {
  it('has each TCP port listening on 127.0.0.1 and nowhere else', () => {
    const sockets = listening('tcp');
    for (const [name, port] of Object.entries(ownPorts().tcp)) {
      const bound = sockets.filter((entry) => entry.port === port).map((entry) => entry.address);
      expect(bound.length, `${name} (${port}) listens`).toBeGreaterThan(0);
      expect(new Set(bound), `${name} (${port})`).toEqual(new Set(['127.0.0.1']));
    }
  });

  it("has the DNS server's UDP port bound to 127.0.0.1 and nowhere else", () => {
    const sockets = listening('udp');
    for (const [name, port] of Object.entries(ownPorts().udp)) {
      const bound = sockets.filter((entry) => entry.port === port).map((entry) => entry.address);
      expect(bound.length, `${name} (${port}) is bound`).toBeGreaterThan(0);
      expect(new Set(bound), `${name} (${port})`).toEqual(new Set(['127.0.0.1']));
    }
  });

  it("opens no other listening socket off loopback, in this process or in DynamoDB Local's Java", () => {
    const sockets = [...listening('tcp'), ...listening('udp')];
    const dynamoSocket = sockets.find((entry) => entry.port === portOf(runtime.dynamo.endpoint));
    const java = processesHolding(dynamoSocket!.inode);
    expect(java).toHaveLength(1);
    for (const pid of ['self', ...java]) {
      const inodes = socketInodes(pid);
      const own = sockets.filter((entry) => inodes.has(entry.inode));
      expect(own.length, pid).toBeGreaterThan(0);
      expect(
        own.filter((entry) => entry.address !== '127.0.0.1'),
        pid,
      ).toEqual([]);
    }
  });

  it("refuses TCP connections to every port on this machine's other IPv4 addresses", async () => {
    const addresses = ownAddresses();
    for (const address of addresses) {
      for (const [name, port] of Object.entries(ownPorts().tcp)) {
        expect(await tcpConnect(address, port), `${name} at ${address}:${port}`).toBe('ECONNREFUSED');
      }
    }
    // Reached on loopback, each of them answers, so the refusals above are the binding's.
    for (const [name, port] of Object.entries(ownPorts().tcp)) expect(await tcpConnect('127.0.0.1', port), name).toBe('connected');
  });

  it("refuses DNS over UDP on this machine's other IPv4 addresses (port unreachable)", async () => {
    for (const address of ownAddresses()) expect(await udpExchange(address, runtime.dns.port)).toBe('ECONNREFUSED');
    expect(await udpExchange('127.0.0.1', runtime.dns.port)).toBe('answered');
  });
});

function tcpConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 5000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** One DNS question (A for `example.`) on a connected UDP socket, which hears ICMP port-unreachable as ECONNREFUSED. */
function udpExchange(host: string, port: number): Promise<string> {
  const query = Buffer.from('abcd01000001000000000000076578616d706c650000010001', 'hex');
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    const done = (outcome: string) => {
      clearTimeout(timer);
      socket.close();
      resolve(outcome);
    };
    const timer = setTimeout(() => done('timeout'), 5000);
    socket.once('message', () => done('answered'));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
    socket.connect(port, host, () => socket.send(query));
  });
}
