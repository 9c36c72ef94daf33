import type { Command } from '../command.ts';

export const inbox: Command = {
  name: 'inbox',
  options: {},
  positionals: 0,
  help: { usage: 'hushlink inbox', summary: 'TODO', description: 'TODO', options: [], examples: [] },
  run: async () => 1,
};
