// Re-sealing every merchant secret under the current encryption key (docs/operations.md, "Rotating
// the encryption key"): each webhook secret, webhook endpoint secret (with the previous one of a
// rotation) and API secret, revoked keys' included (and, by payment-command, each merchant wallet's
// seed), is opened with
// whichever configured key sealed it and sealed again with the current key, in the current format.
//
// Row by row, each replacement a compare-and-set on the sealed value: a crash leaves every row either
// as it was (it opens with a previous key) or re-sealed (it opens with the current key), and a second
// run finishes the work and changes nothing after that. A secret rotated while the run goes is not
// overwritten: the row is read again. Values that no configured key opens are reported, never changed.

import type { ResealCounts, ResealReport, UnopenableSecret } from '@chainpay/contracts'
import type { SecretBox } from '@chainpay/platform'
import {
  apiSecretContext,
  type MerchantStore,
  type MerchantWallets,
  type WebhookEndpointStore,
  webhookEndpointSecretContext,
  webhookSecretContext,
} from '@chainpay/ports'

export interface ResealDeps {
  merchants: MerchantStore
  secretBox: SecretBox
  /** the merchants' webhook endpoints; none re-sealed when absent */
  webhookEndpoints?: WebhookEndpointStore
  /** merchants' wallet seeds, re-sealed by payment-command which keeps them; none when absent */
  merchantWallets?: Pick<MerchantWallets, 'resealSeeds'>
}

export type { ResealCounts, ResealReport, UnopenableSecret }

/** attempts per row when the row keeps changing under the run (each change is an operator's rotation) */
const ATTEMPTS_PER_ROW = 5

type RowOutcome =
  | { outcome: 'resealed' }
  | { outcome: 'alreadyCurrent' }
  | { outcome: 'gone' }
  | { outcome: 'unopenable'; problem: string }

export async function resealMerchantSecrets(deps: ResealDeps): Promise<ResealReport> {
  const { merchants, secretBox } = deps
  const report: ResealReport = {
    currentKeyId: secretBox.currentKeyId,
    webhookSecrets: { total: 0, resealed: 0, alreadyCurrent: 0 },
    apiSecrets: { total: 0, resealed: 0, alreadyCurrent: 0 },
    webhookEndpointSecrets: { total: 0, resealed: 0, alreadyCurrent: 0 },
    merchantWalletSeeds: { total: 0, resealed: 0, alreadyCurrent: 0 },
    unopenable: [],
  }
  const count = (counts: ResealCounts, row: RowOutcome, unopenable: Omit<UnopenableSecret, 'problem'>) => {
    if (row.outcome === 'gone') return
    counts.total += 1
    if (row.outcome === 'resealed') counts.resealed += 1
    else if (row.outcome === 'alreadyCurrent') counts.alreadyCurrent += 1
    else report.unopenable.push({ ...unopenable, problem: row.problem })
  }

  for (const listed of await merchants.listMerchants()) {
    const { merchantId } = listed
    const row = await resealRow(secretBox, webhookSecretContext(merchantId), {
      read: async () => (await merchants.getMerchant(merchantId))?.webhookSecret ?? null,
      replace: (expected, replacement) =>
        merchants.replaceSealedWebhookSecret(merchantId, expected, replacement),
    })
    count(report.webhookSecrets, row, { record: 'webhookSecret', merchantId })

    for (const key of await merchants.listApiKeys(merchantId)) {
      const { apiKey } = key
      const keyRow = await resealRow(secretBox, apiSecretContext(key), {
        read: async () => {
          const found = await merchants.findApiKey(apiKey)
          return found?.merchantId === merchantId ? found.secret : null
        },
        replace: (expected, replacement) => merchants.replaceSealedApiSecret(apiKey, expected, replacement),
      })
      count(report.apiSecrets, keyRow, { record: 'apiSecret', merchantId, apiKey })
    }

    for (const listed of (await deps.webhookEndpoints?.list(merchantId)) ?? []) {
      const { endpointId } = listed
      const store = deps.webhookEndpoints as WebhookEndpointStore
      // the pair as one value: both re-sealed together, compared and replaced together
      const endpointRow = await resealRow(secretBox, webhookEndpointSecretContext(listed), {
        read: async () => {
          const found = await store.get(merchantId, endpointId)
          return found === null ? null : JSON.stringify([found.secret, found.previousSecret])
        },
        replace: (expected, replacement) =>
          store.replaceSealedSecrets(merchantId, endpointId, secretsOf(expected), secretsOf(replacement)),
        pair: true,
      })
      count(report.webhookEndpointSecrets, endpointRow, {
        record: 'webhookEndpointSecret',
        merchantId,
        endpointId,
      })
    }
  }

  if (deps.merchantWallets) {
    const { unopenable, ...counts } = await deps.merchantWallets.resealSeeds()
    report.merchantWalletSeeds = counts
    for (const { merchantId, problem } of unopenable) {
      report.unopenable.push({ record: 'merchantWalletSeed', merchantId, problem })
    }
  }
  return report
}

function secretsOf(pair: string): { secret: string; previousSecret: string | null } {
  const [secret, previousSecret] = JSON.parse(pair) as [string, string | null]
  return { secret, previousSecret }
}

/**
 * One row's sealed value; with `pair`, the value is the JSON [secret, previous secret or null] of a
 * webhook endpoint, each sealed on its own, re-sealed together.
 */
async function resealRow(
  secretBox: SecretBox,
  context: string,
  row: {
    read(): Promise<string | null>
    replace(expected: string, replacement: string): Promise<boolean>
    pair?: boolean
  },
): Promise<RowOutcome> {
  for (let attempt = 1; ; attempt += 1) {
    const read = await row.read()
    if (read === null) return { outcome: 'gone' }
    const values: (string | null)[] = row.pair ? (JSON.parse(read) as (string | null)[]) : [read]
    let plains: (string | null)[]
    try {
      plains = values.map((sealed) => (sealed === null ? null : secretBox.open(sealed, context)))
    } catch (error) {
      return { outcome: 'unopenable', problem: (error as Error).message }
    }
    if (values.every((sealed) => sealed === null || secretBox.isSealedWithCurrentKey(sealed))) {
      return { outcome: 'alreadyCurrent' }
    }
    const resealed = plains.map((plain) => (plain === null ? null : secretBox.seal(plain, context)))
    const replacement = row.pair ? JSON.stringify(resealed) : (resealed[0] as string)
    if (await row.replace(read, replacement)) return { outcome: 'resealed' }
    if (attempt === ATTEMPTS_PER_ROW) {
      throw new Error(`re-seal: the row kept changing during ${ATTEMPTS_PER_ROW} attempts; run it again`)
    }
  }
}
