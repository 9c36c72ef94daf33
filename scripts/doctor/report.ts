/**
 * The doctor's lines (scripts/doctor.ts): one per check, `ok`, `warn` or `fail`, what was found,
 * and for a warn or a fail what to do. A fail is what users would meet as an error (sign-in mail
 * refused, a checkout, the portal or a payment's event failing, a missing secret); a warn is a
 * safeguard or an option that is off while the service works. Exit status 1 when any fails.
 */
export type Status = 'ok' | 'warn' | 'fail';

export interface Check {
  name: string;
  status: Status;
  detail: string;
  /** What to do: required for a warn or a fail. */
  fix?: string;
}

export const ok = (name: string, detail: string): Check => ({ name, status: 'ok', detail });
export const warn = (name: string, detail: string, fix: string): Check => ({ name, status: 'warn', detail, fix });
export const fail = (name: string, detail: string, fix: string): Check => ({ name, status: 'fail', detail, fix });

/** An SDK's error as `Name: message` (AWS's and Stripe's name what was refused and why). */
export function errorText(error: unknown): string {
  const { name, message } = error as { name?: string; message?: string };
  const text = (message ?? String(error)).split('\n')[0]!.trim();
  return name && name !== 'Error' ? `${name}: ${text}` : text;
}

/** A check that threw: it could not be made, which is a fail (nothing was verified), saying why. */
export async function guarded(name: string, fix: string, check: () => Promise<Check | Check[]>): Promise<Check[]> {
  try {
    const made = await check();
    return Array.isArray(made) ? made : [made];
  } catch (error) {
    return [fail(name, `could not check: ${errorText(error)}`, fix)];
  }
}

/**
 * The report as printed: `ok|warn|fail  <check>  <detail>`, an indented `→ what to do` under a
 * warn or a fail, and a count. Every value in `secrets` is replaced wherever it appears, so no
 * secret reaches the terminal even through an error's message.
 */
export function renderReport(checks: readonly Check[], secrets: readonly string[] = []): { text: string; status: 0 | 1 } {
  const width = Math.max(0, ...checks.map((check) => check.name.length));
  const lines: string[] = [];
  for (const check of checks) {
    lines.push(`${check.status.padEnd(4)}  ${check.name.padEnd(width)}  ${check.detail}`);
    if (check.status !== 'ok' && check.fix) lines.push(`${' '.repeat(6)}→ ${check.fix}`);
  }
  const count = (status: Status) => checks.filter((check) => check.status === status).length;
  lines.push('', `${count('ok')} ok, ${count('warn')} warn, ${count('fail')} fail`);
  let text = `${lines.join('\n')}\n`;
  for (const secret of secrets) if (secret.length >= 8) text = text.split(secret).join('[secret]');
  return { text, status: count('fail') > 0 ? 1 : 0 };
}
