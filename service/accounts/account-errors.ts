// Errors of account administration (create account/user, issue/revoke keys). Raised to the CLI,
// which prints the message; `code` is stable for scripts and tests.

export type AccountErrorCode = 'invalid-input' | 'account-not-found' | 'user-not-found' | 'email-taken' | 'last-admin';

export class AccountAdminError extends Error {
  override readonly name = 'AccountAdminError';
  constructor(readonly code: AccountErrorCode, message: string) {
    super(message);
  }
}
