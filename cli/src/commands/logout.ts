import type { Command } from '../command.ts';

export const logout: Command = {
  name: 'logout',
  options: {},
  positionals: 0,
  help: { usage: 'hushlink logout', summary: 'TODO', description: 'TODO', options: [], examples: [] },
  run: async () => 1,
};
