import { buildApp } from './src/app.js';
