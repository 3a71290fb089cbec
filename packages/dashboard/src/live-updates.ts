// Live updates of a payment's page while the payment can still change (docs/dashboard.md, "Live
// updates"), as the customer's page does them (packages/gateway/src/checkout/checkout-assets.ts):
// a small same-origin script, allowed by the CSP's script-src 'self', polls the payment's status
// (its read model revision) under /dashboard and reloads the page when it moved. Without script the
// page is the same, and a reload shows the news.

/** the payment statuses after which nothing changes what the page shows but late funds */
export const SETTLED_STATUSES: readonly string[] = ['confirmed', 'overpaid', 'expired', 'canceled', 'failed']

/** how often the script asks, in milliseconds */
export const LIVE_POLL_MS = 5_000

/** served at /dashboard/assets/live.js */
export const LIVE_SCRIPT = `'use strict'
;(() => {
  const main = document.querySelector('[data-status-url]')
  if (!main) return
  const url = main.getAttribute('data-status-url')
  const revision = main.getAttribute('data-revision')
  const poll = async () => {
    try {
      const response = await fetch(url, { cache: 'no-store', credentials: 'same-origin' })
      if (response.ok) {
        const status = await response.json()
        if (String(status.revision) !== revision) {
          window.location.reload()
          return
        }
        if (status.settled) return
      }
    } catch {
      // offline for a moment: the next poll tries again
    }
    setTimeout(poll, ${LIVE_POLL_MS})
  }
  setTimeout(poll, ${LIVE_POLL_MS})
})()
`
