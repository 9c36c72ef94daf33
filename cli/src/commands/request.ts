import type { Command } from '../command.ts';

export const request: Command = {
  name: 'request',
  options: {},
  positionals: 0,
  help: { usage: 'hushlink request', summary: 'TODO', description: 'TODO', options: [], examples: [] },
  run: async () => 1,
};
