import type { Command } from '../command.ts';

export const respond: Command = {
  name: 'respond',
  options: {},
  positionals: 0,
  help: { usage: 'hushlink respond', summary: 'TODO', description: 'TODO', options: [], examples: [] },
  run: async () => 1,
};
