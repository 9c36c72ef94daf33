/**
 * Access tokens: what checking and issuing one costs an instance, next to jose with a key
 * imported once (the floor: the signature itself) and to jose importing the JWK on every call
 * (what TokenVerifier and AccessTokens did before they kept imported keys), all in this run.
 * Pure CPU, no services. `npm run bench:tokens`; knobs BENCH_N (calls per round, default 2000)
 * and BENCH_ROUNDS (default 5, the order rotated each round).
 */
import { loadavg } from 'node:os';
import { importJWK, jwtVerify, SignJWT } from 'jose';
import { systemClock } from '../shared/clock.ts';
import type { SigningKey } from '../shared/domain/accounts/model.ts';
import type { SigningKeyStore } from '../shared/domain/accounts/ports.ts';
import { AccessTokens } from '../shared/domain/accounts/tokens.ts';
import { accessTokenAudience, SigningKeyList, TokenVerifier } from '../shared/domain/accounts/tokenVerifier.ts';
import { fmtRatio, machineLine, median, positiveInt, printTable, reportHeadlines, runBench } from './support.ts';

const n = positiveInt(process.env.BENCH_N, 2000);
const rounds = positiveInt(process.env.BENCH_ROUNDS, 5);
const issuer = 'http://localhost:3000';

/** The table's key item, in memory: the bench measures the instance, not DynamoDB. */
class MemoryKeyStore implements SigningKeyStore {
  keys: SigningKey[] = [];
  async list() {
    return this.keys;
  }
  async add(key: SigningKey, expectedNewestKid: string | null, keep: number) {
    if ((this.keys[0]?.kid ?? null) !== expectedNewestKid) return false;
    this.keys = [key, ...this.keys].slice(0, keep);
    return true;
  }
}

async function main() {
  const load = loadavg();
  const store = new MemoryKeyStore();
  const signer = new AccessTokens(new SigningKeyList(store, systemClock), systemClock, issuer);
  const verifier = new TokenVerifier(new SigningKeyList(store, systemClock), systemClock, issuer);
  const key = await signer.currentKey();
  const { token } = await signer.issue({ userId: 'usr_bench', sessionId: 'ses_bench' });
  const publicKey = await importJWK(key.publicJwk, 'ES256');
  const privateKey = await importJWK(key.privateJwk, 'ES256');
  const options = { algorithms: ['ES256'], issuer, audience: accessTokenAudience, requiredClaims: ['exp'] };
  const unsigned = () =>
    new SignJWT({ sid: 'ses_bench' })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' })
      .setSubject('usr_bench')
      .setIssuer(issuer)
      .setAudience(accessTokenAudience)
      .setIssuedAt()
      .setExpirationTime('15m');

  const cases: Record<string, () => Promise<unknown>> = {
    'verify: jose, key imported once (floor)': () => jwtVerify(token, publicKey, options),
    'verify: jose, JWK imported per call (before)': () => jwtVerify(token, () => importJWK(key.publicJwk, 'ES256'), options),
    'verify: TokenVerifier.verify': async () => {
      if ((await verifier.verify(token)) === null) throw new Error('the bench token did not verify');
    },
    'issue: jose, key imported once (floor)': () => unsigned().sign(privateKey),
    'issue: jose, JWK imported per call (before)': async () => unsigned().sign(await importJWK(key.privateJwk, 'ES256')),
    'issue: AccessTokens.issue': () => signer.issue({ userId: 'usr_bench', sessionId: 'ses_bench' }),
  };
  const names = Object.keys(cases);
  const times = new Map<string, number[]>(names.map((name) => [name, []]));
  for (const name of names) for (let i = 0; i < 200; i++) await cases[name]!(); // warm-up
  for (let round = 0; round < rounds; round++) {
    const order = [...names.slice(round % names.length), ...names.slice(0, round % names.length)];
    for (const name of order) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < n; i++) await cases[name]!();
      times.get(name)!.push(Number(process.hrtime.bigint() - start) / 1e3 / n);
    }
  }
  const us = (name: string) => median(times.get(name)!);
  console.log(`Access tokens (ES256), ${n} calls x ${rounds} rounds, median per call; ${machineLine(load)}`);
  printTable(
    ['case', 'µs per call', 'vs floor', 'vs before'],
    names.map((name) => {
      const kind = name.slice(0, name.indexOf(':'));
      return [
        name,
        us(name).toFixed(1),
        fmtRatio(us(name) / us(`${kind}: jose, key imported once (floor)`), 2),
        fmtRatio(us(name) / us(`${kind}: jose, JWK imported per call (before)`), 2),
      ];
    }),
    new Set([1, 2, 3]),
  );
  // No issue set a figure: the change was to import each key once instead of per call, so "before" is what it must beat.
  reportHeadlines(
    'tokens',
    (['verify: TokenVerifier.verify', 'issue: AccessTokens.issue'] as const).map((name) => {
      const kind = name.slice(0, name.indexOf(':'));
      const ratio = us(name) / us(`${kind}: jose, JWK imported per call (before)`);
      return {
        name: `${kind} µs / importing the JWK per call`,
        value: fmtRatio(ratio, 2),
        target: '< 1.00x',
        met: ratio < 1,
        note: `${us(name).toFixed(0)} µs; floor ${us(`${kind}: jose, key imported once (floor)`).toFixed(0)} µs`,
      };
    }),
  );
}

runBench(main);
