// The program's entry (bin/hushlink.js loads it): runs a command and exits with its code, once
// stdout and stderr have drained (a pipe takes 64 KiB at a time: exiting earlier cuts the rest).
import { main } from './main.ts';

const code = await main(process.argv.slice(2));
const drained = (stream: NodeJS.WriteStream) => new Promise<void>((resolve) => stream.write('', () => resolve()));
await Promise.all([drained(process.stdout), drained(process.stderr)]);
process.exit(code);
