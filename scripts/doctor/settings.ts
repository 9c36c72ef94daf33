import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RootConstruct } from 'constructs';
import { readSettings, type HushlinkSettings } from '../../lib/config.ts';
import { fail, ok, type Check } from './report.ts';

/** The deployment the doctor checks: its settings as the CDK app reads them, its stack and region. */
export interface DoctorTarget {
  settings: HushlinkSettings;
  /** `Hushlink-<stage>`, as bin/app.ts names it. */
  stackName: string;
  region: string;
}

export const stackNameOf = (stage: string) => `Hushlink-${stage}`;

/**
 * The context the CDK CLI gives the app before any `-c`: cdk.json's `context`, then
 * cdk.context.json (values the CLI cached), in the project folder.
 */
export function projectContext(projectDir: string): Record<string, unknown> {
  const read = (file: string): Record<string, unknown> => {
    const path = join(projectDir, file);
    if (!existsSync(path)) return {};
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    return file === 'cdk.json' ? ((parsed.context as Record<string, unknown> | undefined) ?? {}) : parsed;
  };
  return { ...read('cdk.json'), ...read('cdk.context.json') };
}

/**
 * The deployment's settings through lib/config.ts's `readSettings`, the very checks a synth
 * makes (so a context a deploy would refuse is refused here, naming the key), on a construct
 * tree holding the context the CDK CLI would give: the project's, then `-c`, then the stage.
 */
export function doctorTarget(
  command: { stage: string; context: Record<string, string>; region: string | undefined },
  baseContext: Record<string, unknown>,
  env: Record<string, string | undefined>,
): { target: DoctorTarget | null; check: Check } {
  const root = new RootConstruct();
  for (const [key, value] of Object.entries({ ...baseContext, ...command.context, stage: command.stage })) root.node.setContext(key, value);
  let settings: HushlinkSettings;
  try {
    settings = readSettings(root.node);
  } catch (error) {
    return {
      target: null,
      check: fail(
        'config',
        (error as Error).message,
        'give the doctor the same -c values as cdk deploy (or keep them in cdk.json), e.g. -c pricePro=price_… -c priceTeamSeat=price_…',
      ),
    };
  }
  const stackName = stackNameOf(settings.stage);
  const region = command.region ?? settings.region ?? (env.AWS_REGION || undefined) ?? (env.AWS_DEFAULT_REGION || undefined);
  if (region === undefined)
    return {
      target: null,
      check: fail(
        'config',
        `no region for ${stackName}`,
        'give --region <region> (or -c region=…, or AWS_REGION): the region the stack is in',
      ),
    };
  return {
    target: { settings, stackName, region },
    check: ok('config', `stage ${settings.stage}: ${stackName} in ${region}, webOrigin ${settings.webOrigin}`),
  };
}
