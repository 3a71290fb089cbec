export * from './bus-messages.js'
