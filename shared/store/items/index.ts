/**
 * The table's one owner of keys and item shapes (issue 27): every item type the single table
 * holds, its keys, its index entries and its stored attributes, and the one store module that
 * writes it. No key is spelled anywhere else (test/unit/table-keys.test.ts). A store writes only
 * the items it owns here; a write that spans items is composed of each owner's parts.
 *
 * | item                  | pk                           | sk                          | indexes                               | owner (shared/store/)          |
 * |-----------------------|------------------------------|-----------------------------|---------------------------------------|--------------------------------|
 * | secret                | SECRET#<id>                  | SECRET                      | gsi1 OWNER#<owner>; gsi2 DUE/UPLOAD/COMPLETE/PURGE | secrets.ts (secretItem.ts) |
 * | envelope part         | SECRET#<id>                  | ENVELOPE#<nnn>              |                                       | secrets.ts (envelopeParts.ts)  |
 * | receipt               | SECRET#<id>                  | RECEIPT#<iso>#<event>       |                                       | receipts.ts                    |
 * | gate code             | GATE#<secret>#<link>         | CODE                        |                                       | gate.ts                        |
 * | gate session          | GATESESSION#<token hash>     | SESSION                     |                                       | gate.ts                        |
 * | user                  | USER#<id>                    | PROFILE                     |                                       | users.ts                       |
 * | email                 | EMAIL#<address>              | EMAIL                       |                                       | users.ts                       |
 * | session               | SESSION#<id>                 | SESSION                     | gsi1 USER#<user>#SESSIONS             | sessions.ts                    |
 * | session pointer       | SESSIONS#<user>              | <session id>                |                                       | sessions.ts                    |
 * | API key               | APIKEY#<id>                  | APIKEY                      | gsi1 USER#<user>#KEYS                 | apiKeys.ts                     |
 * | sign-in codes         | SIGNIN#<address hash>        | CODES                       |                                       | signIn.ts                      |
 * | sign-in ask           | SIGNIN_ASKED#<hash>          | ASKED                       |                                       | signIn.ts                      |
 * | signing keys          | CONFIG                       | SIGNING_KEYS                |                                       | signingKeys.ts                 |
 * | billing               | USER#<id> / WORKSPACE#<id>   | BILLING                     |                                       | billing.ts                     |
 * | subscription          | SUBSCRIPTION#<id>            | SUBSCRIPTION                |                                       | billing.ts                     |
 * | provider event        | PROVIDER_EVENT#<id>          | PROVIDER_EVENT              |                                       | billing.ts                     |
 * | workspace             | WORKSPACE#<id>               | WORKSPACE                   |                                       | workspaces.ts                  |
 * | roster                | WORKSPACE#<id>               | ROSTER                      |                                       | workspaceRoster.ts             |
 * | branding              | WORKSPACE#<id>               | BRANDING                    |                                       | workspaces.ts                  |
 * | member                | WORKSPACE#<id>               | MEMBER#<user>               | gsi1 MEMBERSHIPS#<user>               | workspaceItems.ts              |
 * | invitation            | WORKSPACE#<id>               | INVITATION#<id>             |                                       | workspaceMembershipChanges.ts  |
 * | invitation token      | INVITATION_TOKEN#<hash>      | INVITATION_TOKEN            |                                       | workspaceMembershipChanges.ts  |
 * | slug                  | SLUG#<slug>                  | SLUG                        |                                       | workspaces.ts                  |
 * | audit row             | AUDIT#<workspace>            | <iso>#<id>                  |                                       | workspaceItems.ts              |
 * | SCIM User             | WORKSPACE#<id>               | SCIM_USER#<id>              |                                       | workspaceScim.ts               |
 * | SCIM userName         | WORKSPACE#<id>               | SCIM_USERNAME#<folded>      |                                       | workspaceScim.ts               |
 * | SCIM externalId       | WORKSPACE#<id>               | SCIM_EXTERNAL#<externalId>  |                                       | workspaceScim.ts               |
 * | SCIM account          | WORKSPACE#<id>               | SCIM_ACCOUNT#<user>         |                                       | workspaceScim.ts               |
 * | SCIM User count       | WORKSPACE#<id>               | SCIM_USERS                  |                                       | scimUserPages.ts               |
 * | SCIM User page end    | WORKSPACE#<id>               | SCIM_USERPAGE#<listing>#<i> |                                       | scimUserPages.ts               |
 * | SCIM Group            | WORKSPACE#<id>               | SCIM_GROUP#<id>             |                                       | scimGroups.ts                  |
 * | SCIM Group name, ext  | WORKSPACE#<id>               | SCIM_GROUPNAME#, SCIM_GROUPEXT# |                                   | scimGroups.ts                  |
 * | SCIM Group count      | WORKSPACE#<id>               | SCIM_GROUPS                 |                                       | scimGroups.ts                  |
 * | SCIM Group page end   | WORKSPACE#<id>               | SCIM_GROUPPAGE#<index>      |                                       | scimGroups.ts                  |
 * | SSO directory         | WORKSPACE#<id>               | SSO                         |                                       | workspaceSso.ts                |
 * | SSO domain            | SSO_DOMAIN#<domain>          | SSO                         |                                       | workspaceSso.ts                |
 * | directory key         | SCIM_KEY#<sha256>            | SCIM_KEY                    |                                       | workspaceSso.ts                |
 * | SSO sign-in state     | SSO_STATE#<state id>         | STATE                       |                                       | ssoSignIns.ts                  |
 * | SSO code exchange     | SSO_EXCHANGE#<code hash>     | EXCHANGE                    |                                       | ssoSignIns.ts                  |
 * | domain claim          | WORKSPACE#<id>               | DOMAIN#<hostname>           | gsi2 DOMAIN_CHECK/DOMAIN_HOSTING      | workspaceDomains.ts            |
 * | domain pointer        | DOMAIN#<id>                  | DOMAIN                      |                                       | workspaceDomains.ts            |
 * | hostname              | HOSTNAME#<hostname>          | HOSTNAME                    |                                       | workspaceDomains.ts            |
 * | hosting stop order    | HOSTING_STOP#<domain>        | HOSTING_STOP                | gsi2 HOSTING_STOP                     | workspaceDomains.ts            |
 * | webhook endpoint      | WEBHOOKS#<user>              | ENDPOINT#<id>               |                                       | webhooks.ts                    |
 * | endpoint count        | WEBHOOKS#<user>              | COUNT                       |                                       | webhooks.ts                    |
 * | delivery              | DELIVERIES#<endpoint>        | DELIVERY#<id>               | gsi2 RETRY                            | webhooks.ts                    |
 * | pending test list     | DELIVERIES#<endpoint>        | PENDING_TESTS               |                                       | webhooks.ts (pendingTests.ts)  |
 * | current usage         | USAGE#<user>                 | CURRENT                     | gsi2 USAGE#<shard> / <user>           | usage.ts (live ledger)         |
 * | usage mark            | USAGE#<user>                 | APPLIED#<secret>#<phase>    |                                       | usage.ts (live ledger)         |
 * | month's calls         | USAGE#<user>                 | MONTH#<yyyy-mm>             |                                       | usage.ts (call counter)        |
 * | usage day             | USAGE#<user>                 | DAY#<yyyy-mm-dd>            |                                       | usageReports.ts                |
 * | feedback counters     | COUNTER#<name>               | DAY#<yyyy-mm-dd>            |                                       | counters.ts                    |
 * | product event         | PRODUCT_EVENT#<yyyy-mm-dd>   | <iso>#<id>                  |                                       | productEvents.ts               |
 * | chat installation     | CHAT_TEAM#<team>             | INSTALLATION                |                                       | chatInstallations.ts           |
 * | chat install state    | CHAT_STATE#<id>              | STATE                       |                                       | chatInstallations.ts           |
 * | chat notice mark      | CHAT_NOTICE#<event>          | NOTICE                      |                                       | noticeMarks.ts                 |
 * | buyer's notice mark   | BILLING_NOTICE#<event>       | NOTICE                      |                                       | noticeMarks.ts                 |
 * | request link          | REQUEST#<id>                 | REQUEST                     | gsi1 REQUESTS#<owner>                 | requests.ts                    |
 * | response              | REQUEST#<id>                 | RESPONSE#<iso>#<id>         |                                       | requests.ts                    |
 * | rate window           | RATE#<bucket>                | <window start>              |                                       | rateLimits.ts                  |
 *
 * gsi1 sort keys are `<ISO created>#<id>` (secrets, requests), `<created ms>#<id>` (sessions, API
 * keys) or `WORKSPACE#<id>` (memberships); gsi2 is the sharded work index (work.ts) and the
 * rollup's listing of users with usage.
 */
export * from './accounts.ts';
export * from './billing.ts';
export * from './chat.ts';
export * from './domains.ts';
export * from './owners.ts';
export * from './rates.ts';
export * from './requests.ts';
export * from './scim.ts';
export * from './scimCursors.ts';
export * from './scimGroups.ts';
export * from './secrets.ts';
export * from './ssoSignIn.ts';
export * from './usage.ts';
export * from './webhooks.ts';
export * from './work.ts';
export * from './workspaces.ts';
