import type { Clock } from '../../clock.ts';
import type { AppLogger } from '../../logger.ts';
import { dayOf, type Counters } from '../counters.ts';
import type { cliInstallSources, cliInstallSystems } from './model.ts';

export interface CliInstall {
  source: (typeof cliInstallSources)[number];
  os: (typeof cliInstallSystems)[number];
  /** Chosen by the caller (within the request schema's form): counted apart, best effort. */
  version: string;
}

/**
 * Counts one install by day: `cli_install` per `<source>.<os>`, and `cli_install_version` per
 * version. The version item is best effort: versions are caller-chosen, so a flood of made-up
 * ones could fill that day's item, and that must never stop the main count.
 */
export async function countCliInstall(request: CliInstall, ports: { clock: Clock; counters: Counters; logger: AppLogger }): Promise<void> {
  const day = dayOf(ports.clock.now());
  await ports.counters.add('cli_install', day, { [`${request.source}.${request.os}`]: 1 });
  try {
    await ports.counters.add('cli_install_version', day, { [request.version]: 1 });
  } catch (error) {
    ports.logger.warn('cli install version not counted', { error: (error as Error).name });
  }
}
