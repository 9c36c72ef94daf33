/** Every command, in the order `hushlink --help` lists them. */
import type { Command } from '../command.ts';
import { inbox } from './inbox.ts';
import { keys } from './keys.ts';
import { login } from './login.ts';
import { logout } from './logout.ts';
import { open } from './open.ts';
import { request } from './request.ts';
import { respond } from './respond.ts';
import { revoke } from './revoke.ts';
import { send } from './send.ts';
import { status } from './status.ts';

export const commands: readonly Command[] = [send, open, revoke, status, request, respond, inbox, login, logout, keys];
