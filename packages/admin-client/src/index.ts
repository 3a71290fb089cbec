export * from './admin-client.js'
export * from './admin-client-error.js'
