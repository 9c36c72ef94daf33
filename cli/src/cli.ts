// The program's entry (bin/hushlink.js loads it): runs a command and exits with its code.
import { main } from './main.ts';

process.exit(await main(process.argv.slice(2)));
