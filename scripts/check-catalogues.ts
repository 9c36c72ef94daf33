/** `npm run i18n:check`: the catalogue checks of scripts/catalogueCheck.ts, one line per problem. */
import { catalogueSets, checkSet } from './catalogueCheck.ts';

let failed = false;
for (const set of catalogueSets()) {
  const problems = checkSet(set);
  console.log(`${set.name}: ${problems.length === 0 ? 'ok' : `${problems.length} problem(s)`}`);
  for (const problem of problems) console.log(`  ${problem}`);
  failed ||= problems.length > 0;
}
process.exit(failed ? 1 : 0);
