// What messages and log lines may show of an RPC URL, whose path or query may hold a provider's key.

/** `https://user:secret@host:8443/key/abc?x=1` -> `https://host:8443`: all that may be shown of an RPC URL */
export function endpointOrigin(url: string): string {
  try {
    const { protocol, host } = new URL(url)
    return `${protocol}//${host}`
  } catch {
    return 'an endpoint that is not a URL'
  }
}
