// Imported first by main.ts, so it runs before the probe package loads and auto-starts
// (BUSSCOPE=1): names the app in the Attach picker unless the user chose a name.
if (!process.env.BUSSCOPE_NAME) process.env.BUSSCOPE_NAME = 'busscope-demo';
export {};
