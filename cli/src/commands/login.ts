import type { Command } from '../command.ts';

export const login: Command = {
  name: 'login',
  options: {},
  positionals: 0,
  help: { usage: 'hushlink login', summary: 'TODO', description: 'TODO', options: [], examples: [] },
  run: async () => 1,
};
