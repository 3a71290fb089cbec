export * from './bus-messages.js'
export * from './webhooks.js'
