// The dashboard's webhook pages as HTML strings (docs/dashboard.md, "Webhooks"): the merchant's
// endpoints with their forms (add, enable or disable, a new secret shown once), and the deliveries,
// overall or of one payment, each with every attempt's outcome and a redeliver button. The forms
// are shown only to a role that may use them; the server checks the role again on every post.

import type { WebhookEndpointView } from '@chainpay/contracts'
import type { WebhookDeliveryView } from '@chainpay/service-kit'
import { csrfField, escapeHtml as e, message, type PageFrame, renderPage } from './dashboard-pages.js'
import type { WebhookTexts } from './webhook-texts.js'

const when = (iso: string) => iso.replace('T', ' ').slice(0, 19)

export interface EndpointsPage {
  endpoints: WebhookEndpointView[]
  /** the role may add, enable, disable and rotate */
  mayConfigure: boolean
  /** a secret just issued, shown this once */
  secret?: { url: string; secret: string; previousSecretExpiresAt: string | null } | undefined
  problem?: string | undefined
}

export function renderWebhookEndpoints(frame: PageFrame, w: WebhookTexts, page: EndpointsPage): string {
  const form = (action: string, label: string, extra = '') =>
    `<form class="inline" method="post" action="${frame.base}/webhooks/endpoints/${action}?lang=${frame.language}">${csrfField(frame)}${extra}<button type="submit" class="secondary">${e(label)}</button></form>`
  const rows = page.endpoints
    .map((endpoint) => {
      const id = encodeURIComponent(endpoint.id)
      const actions =
        !page.mayConfigure || endpoint.managedBy === 'operator'
          ? ''
          : `${form(`${id}/${endpoint.enabled ? 'disable' : 'enable'}`, endpoint.enabled ? w.disable : w.enable)} ${form(`${id}/rotate`, w.rotate)}`
      return `<tr>
  <td class="mono">${e(endpoint.url)}</td>
  <td>${e(endpoint.events === null ? w.everyEvent : endpoint.events.join(', '))}</td>
  <td>${e(endpoint.managedBy === 'operator' ? w.byOperator : (endpoint.description ?? '—'))}</td>
  <td>${e(endpoint.enabled ? w.enabled : w.disabled)}</td>
  <td>${actions}</td>
</tr>`
    })
    .join('\n')
  const table =
    page.endpoints.length === 0
      ? `<p role="status">${e(w.noEndpoints)}</p>`
      : `<div class="scroll" tabindex="0" role="region" aria-labelledby="endpoints-caption"><table>
<caption id="endpoints-caption">${e(w.endpointsTable)}</caption>
<thead><tr><th scope="col">${e(w.url)}</th><th scope="col">${e(w.events)}</th><th scope="col">${e(w.description)}</th><th scope="col">${e(w.state)}</th><th scope="col">${e(w.actions)}</th></tr></thead>
<tbody>
${rows}
</tbody></table></div>`
  const secret = page.secret
    ? `<section class="card" aria-labelledby="secret-title"><h2 id="secret-title">${e(w.rotate)}</h2>
${message('ok', w.secretOnce(page.secret.url))}
<p class="mono secret" id="endpoint-secret">${e(page.secret.secret)}</p>
${page.secret.previousSecretExpiresAt ? `<p>${e(w.overlapUntil(when(page.secret.previousSecretExpiresAt)))} UTC</p>` : ''}
</section>`
    : ''
  const add = page.mayConfigure
    ? `<form class="card" method="post" action="${frame.base}/webhooks/endpoints?lang=${frame.language}">${csrfField(frame)}
  <h2>${e(w.addEndpoint)}</h2>
  <label for="endpoint-url">${e(w.url)}</label>
  <input id="endpoint-url" name="url" type="url" required class="mono">
  <label for="endpoint-description">${e(w.description)}</label>
  <input id="endpoint-description" name="description" maxlength="200">
  <div class="actions"><button type="submit">${e(w.add)}</button></div>
</form>`
    : ''
  return renderPage(
    frame,
    w.endpoints,
    `${page.problem ? message('error', page.problem) : ''}${secret}
${table}
<p><a href="${frame.base}/webhooks/deliveries?lang=${frame.language}">${e(w.deliveries)}</a></p>
${add}`,
  )
}

export interface DeliveriesPage {
  deliveries: WebhookDeliveryView[]
  mayConfigure: boolean
  paymentId: string | null
  status: string
  nextHref: string | null
  notice?: { kind: 'ok' | 'error'; text: string } | undefined
}

export function renderWebhookDeliveries(frame: PageFrame, w: WebhookTexts, page: DeliveriesPage): string {
  const attempts = (delivery: WebhookDeliveryView) =>
    delivery.attempts.length === 0
      ? e(w.noAttempt)
      : `<ol class="attempts">${delivery.attempts
          .map(
            (attempt) =>
              `<li>${e(when(attempt.at))} · ${attempt.statusCode === null ? '—' : e(String(attempt.statusCode))}${
                attempt.durationMs === null ? '' : ` · ${e(String(attempt.durationMs))} ms`
              }${attempt.error ? ` · <span class="mono">${e(attempt.error)}</span>` : ''}</li>`,
          )
          .join('')}</ol>`
  const rows = page.deliveries
    .map(
      (delivery) => `<tr>
  <td>${e(when(delivery.createdAt))}</td>
  <td class="mono">${e(delivery.eventType)}</td>
  <td class="mono"><a href="${frame.base}/webhooks/deliveries?paymentId=${encodeURIComponent(delivery.paymentId)}&amp;lang=${frame.language}">${e(delivery.paymentId)}</a></td>
  <td class="mono">${e(delivery.url ?? '—')}</td>
  <td class="status status-${e(delivery.status)}">${e(delivery.status)}</td>
  <td>${attempts(delivery)}</td>
  <td>${
    page.mayConfigure
      ? `<form class="inline" method="post" action="${frame.base}/webhooks/deliveries/${encodeURIComponent(delivery.id)}/redeliver?lang=${frame.language}">${csrfField(frame)}<button type="submit" class="secondary">${e(w.redeliver)}</button></form>`
      : ''
  }</td>
</tr>`,
    )
    .join('\n')
  const options = ['pending', 'delivered', 'failed', 'no_target']
    .map(
      (status) => `<option value="${status}"${status === page.status ? ' selected' : ''}>${status}</option>`,
    )
    .join('')
  const table =
    page.deliveries.length === 0
      ? `<p role="status">${e(w.noDeliveries)}</p>`
      : `<div class="scroll" tabindex="0" role="region" aria-labelledby="deliveries-caption"><table>
<caption id="deliveries-caption">${e(w.deliveriesTable)}</caption>
<thead><tr><th scope="col">${e(w.created)}</th><th scope="col">${e(w.event)}</th><th scope="col">${e(w.payment)}</th><th scope="col">${e(w.url)}</th><th scope="col">${e(w.status)}</th><th scope="col">${e(w.attempts)}</th><th scope="col">${e(w.actions)}</th></tr></thead>
<tbody>
${rows}
</tbody></table></div>`
  return renderPage(
    frame,
    page.paymentId === null ? w.deliveries : w.forPayment(page.paymentId),
    `${page.notice ? message(page.notice.kind, page.notice.text) : ''}
<form class="card" method="get" action="${frame.base}/webhooks/deliveries">
  ${page.paymentId === null ? '' : `<input type="hidden" name="paymentId" value="${e(page.paymentId)}">`}
  <label for="d-status">${e(w.status)}</label>
  <select id="d-status" name="status"><option value="">${e(w.anyStatus)}</option>${options}</select>
  <input type="hidden" name="lang" value="${frame.language}">
  <div class="actions"><button type="submit">${e(w.filter)}</button>${
    page.paymentId === null
      ? ''
      : ` <a class="button secondary" href="${frame.base}/webhooks/deliveries?lang=${frame.language}">${e(w.allDeliveries)}</a>`
  }</div>
</form>
${table}
${page.nextHref ? `<p><a class="button secondary" href="${e(page.nextHref)}">${e(w.next)}</a></p>` : ''}
<p><a href="${frame.base}/webhooks?lang=${frame.language}">${e(w.endpoints)}</a></p>`,
  )
}
