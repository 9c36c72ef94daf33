/**
 * SCIM imports (issue 30): a directory imports BENCH_USERS Users (default 10,000) through the
 * SCIM store, then lists them as Okta's import does, `GET /Users?startIndex=…&count=BENCH_PAGE`
 * (default 100) from the first page to the last, through the real listing (listScimUsers on
 * DynamoScimUserStore) on DynamoDB Local. Per page it prints the DynamoDB requests, the RCU they
 * consumed (ReturnConsumedCapacity, as DynamoDB Local reports it) and the time; the headline is
 * that the cost is flat from the first page to the last. The baseline, in the same run, is the
 * listing as it was: every page read all of the workspace's Users (`list`) and cut its page
 * from them; it is measured on BENCH_BASELINE_PAGES pages spread over the walk (default 3; each
 * reads every User), as its cost is the same on every page.
 *
 * `npm run bench:scim`; needs Java (DynamoDB Local). The import makes the Users inactive (no
 * seat to hold: what a User's `active` is changes nothing a listing reads), 8 at a time.
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { startDynamoLocal } from '../local/dynamodb.ts';
import { listScimUsers } from '../shared/domain/scim/listing.ts';
import { newAuditId, newScimUserId, newUserId, newWorkspaceId } from '../shared/ids.ts';
import { createDocumentClient } from '../shared/store/client.ts';
import { DynamoScimUserStore } from '../shared/store/workspaceScim.ts';
import {
  fmtMs,
  fmtNum,
  fmtRatio,
  machineLine,
  median,
  meterCalls,
  newTally,
  positiveInt,
  printTable,
  reportHeadlines,
  round,
  runBench,
  snapshot,
  usageSince,
  type Tally,
  type Usage,
} from './support.ts';

const userCount = positiveInt(process.env.BENCH_USERS, 10_000);
const pageSize = positiveInt(process.env.BENCH_PAGE, 100);
const baselinePages = positiveInt(process.env.BENCH_BASELINE_PAGES, 3);
const importParallel = 8;

interface PageCost {
  page: number;
  startIndex: number;
  usage: Usage;
  ms: number;
}

async function main() {
  const load = loadavg();
  const tableName = 'bench-scim';
  const dynamo = await startDynamoLocal({ tableName });
  const tallies = { import: newTally(), list: newTally() };
  let current: Tally = tallies.import;
  const db = createDocumentClient({ region: 'local', endpoint: dynamo.endpoint });
  meterCalls({ tallyOf: () => current, consumedCapacity: 'TOTAL' })(db);
  try {
    const store = new DynamoScimUserStore(db, tableName);
    const clock = { now: () => Date.now() };
    const ports = { scimUsers: store, clock };
    const workspaceId = newWorkspaceId();

    const importStarted = performance.now();
    let next = 0;
    const importOne = async () => {
      for (let index = next++; index < userCount; index = next++) {
        const userName = `user-${index}@bench.example`;
        const now = Date.now();
        const outcome = await store.create(
          workspaceId,
          newScimUserId(),
          { userName, emails: [{ value: userName, type: 'work', primary: true }], active: false, externalId: `ext-${index}` },
          { userId: newUserId(), email: userName },
          now,
          {
            id: newAuditId(),
            workspaceId,
            at: now,
            actor: { userId: null, email: null, via: 'scim' },
            action: 'scim.user_created',
            target: workspaceId,
            details: {},
          },
        );
        if (outcome !== 'created') throw new Error(`User ${index} was not made: ${outcome}`);
      }
    };
    await Promise.all(Array.from({ length: importParallel }, importOne));
    const importMs = performance.now() - importStarted;

    // The walk: every page, as an import asks for them.
    current = tallies.list;
    const pages: PageCost[] = [];
    const seen = new Set<string>();
    for (let startIndex = 1, page = 1; startIndex <= userCount; startIndex += pageSize, page++) {
      const before = snapshot(current);
      const started = performance.now();
      const answer = await listScimUsers(workspaceId, `startIndex=${startIndex}&count=${pageSize}`, ports);
      const ms = performance.now() - started;
      if (answer.totalResults !== userCount) throw new Error(`page ${page}: totalResults ${answer.totalResults}`);
      for (const user of answer.users) seen.add(user.id);
      pages.push({ page, startIndex, usage: usageSince(before, current), ms });
    }
    if (seen.size !== userCount) throw new Error(`the walk saw ${seen.size} Users of ${userCount}`);

    // The baseline: the listing as it was, every User read for a page, on pages spread over the walk.
    const sampled = [
      ...new Set(Array.from({ length: baselinePages }, (_, i) => Math.round((i * (pages.length - 1)) / Math.max(1, baselinePages - 1)))),
    ];
    const baseline: PageCost[] = [];
    for (const index of sampled) {
      const { page, startIndex } = pages[index]!;
      const before = snapshot(current);
      const started = performance.now();
      const users = (await store.list(workspaceId)).slice(startIndex - 1, startIndex - 1 + pageSize);
      const ms = performance.now() - started;
      if (users.length === 0) throw new Error(`baseline page ${page} is empty`);
      baseline.push({ page, startIndex, usage: usageSince(before, current), ms });
    }

    const baselineRcu = median(baseline.map((cost) => cost.usage.rcu));
    const baselineMs = median(baseline.map((cost) => cost.ms));
    console.log(
      `SCIM import and listing: ${userCount} Users imported in ${(importMs / 1000).toFixed(1)} s (${importParallel} at a time), listed in pages of ${pageSize}`,
    );
    console.log(machineLine(load));
    console.log('');
    const shown = new Set([
      1,
      2,
      3,
      Math.ceil(pages.length / 4),
      Math.ceil(pages.length / 2),
      Math.ceil((3 * pages.length) / 4),
      pages.length - 1,
      pages.length,
    ]);
    const row = (label: string, cost: PageCost) => [
      label,
      String(cost.page),
      String(cost.startIndex),
      String(cost.usage.requests),
      fmtNum(cost.usage.rcu),
      fmtNum(cost.usage.wcu),
      fmtMs(cost.ms),
      fmtRatio(cost.usage.rcu / baselineRcu, 3),
      fmtRatio(cost.ms / baselineMs, 3),
      cost.usage.commands,
    ];
    printTable(
      ['listing', 'page', 'startIndex', 'requests', 'RCU', 'WCU', 'ms', 'RCU / baseline', 'ms / baseline', 'DynamoDB calls'],
      [
        ...pages.filter((cost) => shown.has(cost.page)).map((cost) => row('cursor (now)', cost)),
        ...baseline.map((cost) => row('full read (before)', cost)),
      ],
      new Set([1, 2, 3, 4, 5, 6, 7, 8]),
    );
    console.log('');
    const spread = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return `min ${fmtNum(round(sorted[0]!))}, median ${fmtNum(round(median(sorted)))}, max ${fmtNum(round(sorted.at(-1)!))}`;
    };
    console.log(
      `Over all ${pages.length} pages (cursor): requests ${spread(pages.map((cost) => cost.usage.requests))}; RCU ${spread(pages.map((cost) => cost.usage.rcu))}; ms ${spread(pages.map((cost) => cost.ms))}`,
    );
    const firstTen = pages.slice(0, 10).map((cost) => cost.usage.rcu);
    const lastTen = pages.slice(-10).map((cost) => cost.usage.rcu);
    console.log(
      `Flatness: median RCU of the first 10 pages ${fmtNum(round(median(firstTen)))}, of the last 10 ${fmtNum(round(median(lastTen)))}`,
    );
    // Issue 30's target: the page's cost flat from the first page to the last (an import was O(N²)).
    const flatness = median(lastTen) / median(firstTen);
    reportHeadlines('scim', [
      {
        name: `RCU a page, median of the last 10 / of the first 10 (${userCount} Users)`,
        value: fmtRatio(flatness, 2),
        target: '≤ 1.10x',
        met: flatness <= 1.1,
        note: `${fmtNum(round(median(lastTen)))} RCU a page; the full read ${fmtNum(round(baselineRcu))}`,
      },
    ]);
    const totalRcu = round(pages.reduce((sum, cost) => sum + cost.usage.rcu, 0));
    const totalMs = pages.reduce((sum, cost) => sum + cost.ms, 0);
    console.log(
      `The whole walk: ${tallies.list.requests - baseline.reduce((sum, cost) => sum + cost.usage.requests, 0)} requests, ${fmtNum(totalRcu)} RCU, ${(totalMs / 1000).toFixed(2)} s; ` +
        `the full-read listing would take about ${fmtNum(round(baselineRcu * pages.length))} RCU and ${((baselineMs * pages.length) / 1000).toFixed(1)} s (${pages.length} pages × its median page)`,
    );
    console.log('');
    console.log(
      '  requests   DynamoDB calls of the page (GetItem of the count and of where the page starts, the Query, the PutItem of where the next starts)',
    );
    console.log('  RCU, WCU   capacity units as DynamoDB Local reports them (strongly consistent reads: 1 RCU per 4 KB read)');
    console.log(
      '  baseline   the listing before issue 30: every User of the workspace read (paged Queries of 1 MB), the page cut from them',
    );
    console.log(
      '  Caveat     DynamoDB Local (Java + SQLite) shares the CPU with this process: ms move with load; requests and units do not.',
    );
  } finally {
    db.destroy();
    await dynamo.stop();
  }
}

runBench(main);
