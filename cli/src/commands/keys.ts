import type { Command } from '../command.ts';

export const keys: Command = {
  name: 'keys',
  options: {},
  positionals: 0,
  help: { usage: 'hushlink keys', summary: 'TODO', description: 'TODO', options: [], examples: [] },
  run: async () => 1,
};
