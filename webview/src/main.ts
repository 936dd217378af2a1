// Inspector entry point (browser). The renderer arrives with the webview issue.
export {};
