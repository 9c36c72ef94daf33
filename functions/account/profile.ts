import { readAccount, setAccountLocale } from '../../shared/domain/accounts/profile.ts';
import { requireSession } from '../../shared/http/auth.ts';
import type { Operations } from '../../shared/http/group.ts';
import type { OperationOf } from '../../shared/routes.ts';
import type { AccountDeps } from '../account.ts';

type ProfileOperation = Extract<OperationOf<'account'>, 'readAccount' | 'updateAccount'>;

/** The account's own settings (issue 32): who it is, and the language its mails go out in. */
export const profileOperations: Pick<Operations<'account', AccountDeps>, ProfileOperation> = {
  async readAccount(request, deps) {
    return { status: 200, body: await readAccount(requireSession(request.principal).userId, deps) };
  },

  async updateAccount(request, deps) {
    return { status: 200, body: await setAccountLocale(requireSession(request.principal).userId, request.body.locale, deps) };
  },
};
