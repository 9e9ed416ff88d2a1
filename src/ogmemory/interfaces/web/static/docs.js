// Swagger UI for the API, from the vendored swagger-ui-dist (no CDN). The validator badge is
// off: it would send the spec to validator.swagger.io.
window.addEventListener("DOMContentLoaded", () => {
  window.ui = window.SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    validatorUrl: null,
    deepLinking: true,
    persistAuthorization: false,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
