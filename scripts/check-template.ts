/**
 * `npx tsx scripts/check-template.ts [cdk.out]`: every template a synth wrote (nested assemblies
 * too) checked against CloudFormation's resource schemas (lib/templateSchema.ts). Prints each
 * problem and exits 1 if there is one; `.ci/run` runs it after `cdk synth`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { checkTemplate, loadResourceSchemas } from '../lib/templateSchema.ts';

function templatesIn(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return name.startsWith('asset.') ? [] : templatesIn(path);
    return name.endsWith('.template.json') ? [path] : [];
  });
}

const directory = process.argv[2] ?? 'cdk.out';
const templates = templatesIn(directory);
if (templates.length === 0) {
  console.error(`check-template: no *.template.json under ${directory}: run cdk synth first`);
  process.exit(1);
}
const db = await loadResourceSchemas();
let resources = 0;
let problems = 0;
for (const path of templates) {
  const template = JSON.parse(readFileSync(path, 'utf8')) as { Resources?: Record<string, { Type: string }> };
  resources += Object.keys(template.Resources ?? {}).length;
  for (const problem of checkTemplate(template as Parameters<typeof checkTemplate>[0], db)) {
    problems++;
    console.error(`${path}: ${problem.resource} (${problem.type}) ${problem.path}: ${problem.message}`);
  }
}
console.log(`check-template: ${resources} resources in ${templates.length} templates, ${problems} problems`);
process.exitCode = problems > 0 ? 1 : 0;
