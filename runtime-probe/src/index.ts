export * from './bus/index';
