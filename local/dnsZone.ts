// The records the local DNS server answers from, and how it answers a question from them. No
// sockets here: local/dns.ts carries the questions in and the answers out.
import { isIPv4, isIPv6 } from 'node:net';
import type { Answer } from 'dns-packet';

/**
 * One record as a test or a developer writes it. A TXT record given as one string is split into
 * 255-byte character-strings, as DNS providers split a long value; given as a list, each entry
 * is one character-string, as published (so a test can split a record where it likes).
 */
export type DnsRecord =
  | { type: 'TXT'; data: string | string[]; ttl?: number }
  | { type: 'A' | 'AAAA' | 'CNAME'; data: string; ttl?: number };

export type DnsFault = 'servfail' | 'refused' | 'timeout';

export type DnsZoneData = Record<string, DnsRecord[]>;

/** What the zone says about a question: the rcode, and the records of the answer section. */
export interface ZoneAnswer {
  rcode: 'NOERROR' | 'NXDOMAIN';
  answers: Answer[];
}

// The bounds of RFC 1035 §3.1 and §3.3; dns-packet writes a longer label or string's length
// into one byte without a check, so a longer one would go out corrupt rather than refused.
const maxLabelBytes = 63;
const maxNameBytes = 253;
const maxCharacterStringBytes = 255;
/** CNAMEs followed inside the zone before the chain is answered as it stands (a loop ends here). */
const maxCnameHops = 8;
const defaultTtl = 60;

/** A name as the zone keys it: lower-case (DNS compares names without case), no trailing dot. */
export function normalizeDnsName(name: string): string {
  const normalized = name.toLowerCase().replace(/\.$/, '');
  const labels = normalized.split('.');
  if (
    normalized === '' ||
    Buffer.byteLength(normalized) > maxNameBytes ||
    labels.some((label) => label === '' || Buffer.byteLength(label) > maxLabelBytes)
  ) {
    throw new Error(`not a domain name: ${JSON.stringify(name)}`);
  }
  return normalized;
}

function txtStrings(data: string | string[]): Buffer[] {
  if (Array.isArray(data)) {
    const strings = data.map((part) => Buffer.from(part));
    if (strings.length === 0) throw new Error('a TXT record needs at least one string');
    for (const part of strings) {
      if (part.length > maxCharacterStringBytes) throw new Error(`a TXT character-string is at most ${maxCharacterStringBytes} bytes`);
    }
    return strings;
  }
  const bytes = Buffer.from(data);
  const strings: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += maxCharacterStringBytes)
    strings.push(bytes.subarray(offset, offset + maxCharacterStringBytes));
  return strings.length === 0 ? [Buffer.alloc(0)] : strings;
}

interface StoredRecord {
  type: DnsRecord['type'];
  ttl: number;
  data: string | Buffer[];
}

function stored(record: DnsRecord): StoredRecord {
  const ttl = record.ttl ?? defaultTtl;
  if (!Number.isInteger(ttl) || ttl < 0 || ttl > 2 ** 31 - 1) throw new Error(`a TTL is a whole number of seconds, 0 to 2^31 - 1: ${ttl}`);
  switch (record.type) {
    case 'TXT':
      return { type: 'TXT', ttl, data: txtStrings(record.data) };
    case 'A':
      if (!isIPv4(record.data)) throw new Error(`not an IPv4 address: ${record.data}`);
      return { type: 'A', ttl, data: record.data };
    case 'AAAA':
      if (!isIPv6(record.data)) throw new Error(`not an IPv6 address: ${record.data}`);
      return { type: 'AAAA', ttl, data: record.data };
    case 'CNAME':
      return { type: 'CNAME', ttl, data: normalizeDnsName(record.data) };
  }
}

/** The zone: every name this server is authoritative for, with its records and its faults. */
export class DnsZone {
  private readonly records = new Map<string, StoredRecord[]>();
  private readonly faults = new Map<string, DnsFault>();

  constructor(initial: DnsZoneData = {}) {
    for (const [name, records] of Object.entries(initial)) this.set(name, records);
  }

  /** Replaces every record of `name`; an empty list removes the name. */
  set(name: string, records: DnsRecord[]): void {
    const key = normalizeDnsName(name);
    const converted = records.map(stored);
    // RFC 1034 §3.6.2: a name with a CNAME has no other data, so resolvers never have to choose.
    if (converted.some((record) => record.type === 'CNAME') && converted.length > 1) {
      throw new Error(`${key}: a CNAME must be the name's only record`);
    }
    if (converted.length === 0) this.records.delete(key);
    else this.records.set(key, converted);
  }

  remove(name: string): void {
    this.records.delete(normalizeDnsName(name));
  }

  fail(name: string, fault: DnsFault | null): void {
    const key = normalizeDnsName(name);
    if (fault === null) this.faults.delete(key);
    else this.faults.set(key, fault);
  }

  /** The fault set for this name, if any; a name that is not valid has none (it gets FORMERR or NXDOMAIN). */
  faultOf(name: string): DnsFault | undefined {
    try {
      return this.faults.get(normalizeDnsName(name));
    } catch {
      return undefined;
    }
  }

  /**
   * The answer an authoritative server gives for `type` at `name`: the records of that type; or
   * the CNAME, followed inside the zone, then the target's records; NOERROR with no records
   * (NODATA) for a name that exists without that type, NXDOMAIN for a name that does not.
   * Answer names keep the question's spelling, as servers echo it.
   */
  answer(name: string, type: string): ZoneAnswer {
    const answers: Answer[] = [];
    let owner = name;
    let key: string;
    try {
      key = normalizeDnsName(name);
    } catch {
      return { rcode: 'NXDOMAIN', answers };
    }
    for (let hop = 0; hop < maxCnameHops; hop++) {
      const records = this.records.get(key);
      if (!records) return { rcode: this.exists(key) ? 'NOERROR' : 'NXDOMAIN', answers };
      const cname = records.find((record) => record.type === 'CNAME');
      if (!cname || type === 'CNAME') {
        for (const record of records.filter((candidate) => candidate.type === type)) answers.push(toAnswer(owner, record));
        return { rcode: 'NOERROR', answers };
      }
      answers.push(toAnswer(owner, cname));
      owner = key = cname.data as string;
    }
    return { rcode: 'NOERROR', answers };
  }

  /**
   * A name with no records exists when a name below it does (an "empty non-terminal": example.com
   * when only _hushlink-challenge.example.com is set), and then has no data rather than no name
   * (RFC 8020): a resolver that took NXDOMAIN there would believe nothing below it exists.
   */
  private exists(key: string): boolean {
    for (const name of this.records.keys()) if (name.endsWith(`.${key}`)) return true;
    return false;
  }
}

function toAnswer(name: string, record: StoredRecord): Answer {
  const common = { name, ttl: record.ttl, class: 'IN' as const };
  // dns-packet converts a TXT record's strings in place, so each answer gets its own list.
  if (record.type === 'TXT') return { ...common, type: 'TXT', data: [...(record.data as Buffer[])] };
  return { ...common, type: record.type, data: record.data as string };
}
