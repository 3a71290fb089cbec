// The API keys page (docs/dashboard.md, "API keys"): the merchant's keys, never a secret, with forms
// to create one, roll one with an overlap and revoke one; a new key's secret shown this once.

import type { ApiKeyView } from '@chainpay/contracts'
import type { ApiKeyTexts } from './api-key-texts.js'
import { csrfField, escapeHtml as e, message, type PageFrame, renderPage } from './dashboard-pages.js'

export interface IssuedKeyNotice {
  apiKey: string
  /** shown this once */
  apiSecret: string
  rolled?: { apiKey: string; expiresAt: string } | undefined
}

export function renderApiKeys(
  frame: PageFrame,
  k: ApiKeyTexts,
  input: { keys: ApiKeyView[]; issued?: IssuedKeyNotice | undefined; problem?: string | undefined },
): string {
  const t = frame.texts
  const action = (path: string) => `${frame.base}/api-keys${path}?lang=${frame.language}`
  const when = (at: string | null) => (at === null ? '—' : at.replace('T', ' ').slice(0, 19))
  const rows = input.keys
    .map((key) => {
      const working = key.status === 'active'
      const forms = working
        ? `<form class="inline" method="post" action="${action(`/${e(key.apiKey)}/roll`)}">${csrfField(frame)}
<label for="o-${e(key.apiKey)}">${e(k.overlapHours)}</label>
<input id="o-${e(key.apiKey)}" name="overlapHours" type="number" min="0" max="720" value="24" size="4">
<button type="submit" class="secondary">${e(k.roll)}</button></form>
<form class="inline" method="post" action="${action(`/${e(key.apiKey)}/revoke`)}">${csrfField(frame)}<button type="submit" class="secondary">${e(k.revoke)}</button></form>`
        : key.status === 'expiring'
          ? `<form class="inline" method="post" action="${action(`/${e(key.apiKey)}/revoke`)}">${csrfField(frame)}<button type="submit" class="secondary">${e(k.revoke)}</button></form>`
          : ''
      return `<tr><td class="mono">${e(key.apiKey)}</td><td class="status status-${e(key.status)}">${e(key.status)}</td>
<td>${e(when(key.createdAt))}</td><td>${e(when(key.expiresAt))}</td><td>${e(when(key.revokedAt))}</td><td>${forms}</td></tr>`
    })
    .join('\n')
  const table =
    input.keys.length === 0
      ? `<p role="status">${e(k.noKeys)}</p>`
      : `<div class="scroll" tabindex="0" role="region" aria-labelledby="keys-caption"><table>
<caption id="keys-caption">${e(k.keysTable)}</caption>
<thead><tr><th scope="col">${e(k.key)}</th><th scope="col">${e(t.status)}</th><th scope="col">${e(t.created)}</th><th scope="col">${e(k.expiresAt)}</th><th scope="col">${e(k.revokedAt)}</th><th scope="col"></th></tr></thead>
<tbody>
${rows}
</tbody></table></div>`
  const issued = input.issued
    ? `<section class="card" aria-labelledby="issued-title"><h2 id="issued-title">${e(k.apiKeys)}</h2>
${message('ok', k.shownOnce)}
<dl><div><dt>${e(k.key)}</dt><dd class="mono" id="new-key">${e(input.issued.apiKey)}</dd></div>
<div><dt>${e(k.secret)}</dt><dd class="mono secret" id="new-secret">${e(input.issued.apiSecret)}</dd></div></dl>
${input.issued.rolled ? `<p>${e(k.rolled(input.issued.rolled.apiKey, when(input.issued.rolled.expiresAt)))}</p>` : ''}
</section>`
    : ''
  return renderPage(
    frame,
    k.apiKeys,
    `${input.problem ? message('error', k.refused(input.problem)) : ''}
${issued}
${table}
<form class="card" method="post" action="${action('')}">${csrfField(frame)}
<div class="actions"><button type="submit">${e(k.create)}</button></div></form>`,
  )
}
