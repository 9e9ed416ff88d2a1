// Swagger UI for the API, from the vendored swagger-ui-dist (no CDN). The validator badge is
// off: it would send the spec to validator.swagger.io. On a server with keys, the key the web
// UI signed in with (this tab's sessionStorage) goes with "Try it out" requests.
window.addEventListener("DOMContentLoaded", () => {
  window.ui = window.SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    validatorUrl: null,
    deepLinking: true,
    persistAuthorization: false,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    requestInterceptor: (request) => {
      const key = sessionStorage.getItem("ogmemory.apiKey");
      if (key && !request.headers.Authorization) request.headers.Authorization = `Bearer ${key}`;
      return request;
    },
  });
});
