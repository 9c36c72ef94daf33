/**
 * The config folder: credentials and request keys, each a JSON file only its owner can read
 * (folder 0700, files 0600, written to a temporary file and renamed so a crash never leaves
 * half a file), changed under a lock so two commands at once do not lose each other's writes.
 */
import { nodeCrypto } from './nodeCrypto.ts';
import { chmod, mkdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { usageError } from './errors.ts';
import { t } from './i18n.ts';

export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.HUSHLINK_CONFIG_DIR) return env.HUSHLINK_CONFIG_DIR;
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'hushlink');
}

export class ConfigFile<T extends object> {
  constructor(
    readonly dir: string,
    readonly name: string,
  ) {}

  get path() {
    return join(this.dir, this.name);
  }

  async read(): Promise<T | undefined> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      throw usageError(t('cli.config.unreadable', { path: this.path }), 'config_unreadable');
    }
  }

  async write(value: T): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const temporary = `${this.path}.${nodeCrypto().randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(temporary, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      // The mode given at creation passes through the umask, which may not allow even 0600's bits.
      await chmod(temporary, 0o600);
      await rename(temporary, this.path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  async remove(): Promise<void> {
    await rm(this.path, { force: true });
  }

  /** Reads, changes and writes the file with no other command doing the same meanwhile. */
  async update<R>(
    change: (current: T | undefined) => Promise<{ value: T | undefined; result: R }> | { value: T | undefined; result: R },
  ): Promise<R> {
    return this.locked(async () => {
      const { value, result } = await change(await this.read());
      if (value === undefined) await this.remove();
      else await this.write(value);
      return result;
    });
  }

  /** A lock folder beside the file: mkdir either makes it or fails, atomically. */
  async locked<R>(work: () => Promise<R>): Promise<R> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const lock = `${this.path}.lock`;
    for (let attempt = 0; ; attempt += 1) {
      try {
        await mkdir(lock);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        // A lock left by a process that died holding it.
        const held = await stat(lock).catch(() => null);
        if (held && Date.now() - held.mtimeMs > 30_000) {
          // Renamed away first: of two commands seeing the same dead lock, one removes it, not the other's new one.
          const dead = `${lock}.${nodeCrypto().randomBytes(6).toString('hex')}.dead`;
          if (
            await rename(lock, dead).then(
              () => true,
              () => false,
            )
          )
            await rmdir(dead).catch(() => undefined);
        }
        if (attempt > 500) throw usageError(t('cli.config.locked', { lock }), 'config_locked');
        await sleep(10 + Math.floor(Math.random() * 20));
      }
    }
    try {
      return await work();
    } finally {
      await rmdir(lock).catch(() => undefined);
    }
  }
}
