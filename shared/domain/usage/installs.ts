import * as z from 'zod/mini';
import type { Clock } from '../../clock.ts';
import type { AppLogger } from '../../logger.ts';
import { dayOf, type Counters } from '../counters.ts';

/** `1.2.3`, `v1.2`, `1.2.3-beta.1+build.5`: digits first, then what semver allows. */
const semverish = /^v?\d+(\.\d+){0,2}([-+][0-9A-Za-z.+-]+)?$/;

export const cliInstallRequest = z.strictObject({
  source: z.enum(['script', 'homebrew', 'npm', 'scoop', 'apt', 'other']),
  os: z.enum(['linux', 'macos', 'windows', 'other']),
  version: z.string().check(z.maxLength(32), z.regex(semverish, 'a version such as 1.4.2')),
});
export type CliInstallRequest = z.infer<typeof cliInstallRequest>;

/**
 * Counts one install by day: `cli_install` per `<source>.<os>`, and `cli_install_version` per
 * version. The version item is best effort: versions are caller-chosen, so a flood of made-up
 * ones could fill that day's item, and that must never stop the main count.
 */
export async function countCliInstall(request: CliInstallRequest, ports: { clock: Clock; counters: Counters; logger: AppLogger }): Promise<void> {
  const day = dayOf(ports.clock.now());
  await ports.counters.add('cli_install', day, { [`${request.source}.${request.os}`]: 1 });
  try {
    await ports.counters.add('cli_install_version', day, { [request.version]: 1 });
  } catch (error) {
    ports.logger.warn('cli install version not counted', { error: (error as Error).name });
  }
}
