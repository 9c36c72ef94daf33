/**
 * Opening an address in the person's browser with the platform's own opener (`open` on macOS,
 * the URL handler on Windows, `xdg-open` elsewhere), as a detached process the CLI does not
 * wait for. No shell is involved: the address is one argument. Where there is plainly no
 * graphical session (Linux without DISPLAY or WAYLAND_DISPLAY: over ssh, in a container) nothing
 * is tried. Callers print the address anyway, since an opener may start and still show nothing.
 */

/** The opener's command for this platform, or undefined when no browser can be shown here. */
export function opener(url: string, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): [string, string[]] | undefined {
  if (platform === 'darwin') return ['open', [url]];
  // rundll32 takes the address as it is; `cmd /c start` would read its `&` as a command separator.
  if (platform === 'win32') return ['rundll32', ['url.dll,FileProtocolHandler', url]];
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return undefined;
  return ['xdg-open', [url]];
}

/** Starts the opener; false when there is none here or it could not be started. */
export function openInBrowser(url: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const command = opener(url, env);
  if (!command) return Promise.resolve(false);
  // Loaded when a browser is opened, not with the program (start-up).
  return import('node:child_process').then(
    ({ spawn }) =>
      new Promise((resolve) => {
        try {
          const child = spawn(command[0], command[1], { stdio: 'ignore', detached: true, env });
          child.once('error', () => resolve(false));
          child.once('spawn', () => {
            child.unref();
            resolve(true);
          });
        } catch {
          resolve(false);
        }
      }),
    () => false,
  );
}
