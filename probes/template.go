package probes

import (
	"bytes"
	"fmt"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/model/renderers"
	"github.com/ollama/ollama/template"

	"github.com/killchain/killchain/internal/agent"
	"github.com/killchain/killchain/internal/models/ollama"
)

// TinyTemplate is the tiny model's chat template in Ollama's Go template
// syntax: ChatML with tool definitions, tool calls and tool responses, in
// the style of Ollama's qwen2.5 template.
const TinyTemplate = `{{- if or .System .Tools }}<|im_start|>system
{{- if .System }}
{{ .System }}
{{- end }}
{{- if .Tools }}

# Tools

You are provided with function signatures within <tools></tools> XML tags:
<tools>
{{- range .Tools }}
{"type": "function", "function": {{ .Function }}}
{{- end }}
</tools>

For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags.
{{- end }}<|im_end|>
{{ end }}
{{- range $i, $_ := .Messages }}
{{- $last := eq (len (slice $.Messages $i)) 1 -}}
{{- if eq .Role "user" }}<|im_start|>user
{{ .Content }}<|im_end|>
{{ else if eq .Role "assistant" }}<|im_start|>assistant
{{ if .Content }}{{ .Content }}
{{ end }}
{{- range .ToolCalls }}<tool_call>
{"name": "{{ .Function.Name }}", "arguments": {{ .Function.Arguments }}}
</tool_call>
{{ end }}
{{- if not $last }}<|im_end|>
{{ end }}
{{- else if eq .Role "tool" }}<|im_start|>user
<tool_response>
{{ .Content }}
</tool_response><|im_end|>
{{ end }}
{{- if and (ne .Role "assistant") $last }}<|im_start|>assistant
{{ end }}
{{- end }}`

// tinyJinja is the same template in Jinja, for tools that read
// tokenizer.chat_template.
const tinyJinja = `{%- if messages[0]['role'] == 'system' or tools %}<|im_start|>system
{%- if messages[0]['role'] == 'system' %}
{{ messages[0]['content'] }}
{%- endif %}
{%- if tools %}

# Tools

You are provided with function signatures within <tools></tools> XML tags:
<tools>
{%- for tool in tools %}
{{ tool | tojson }}
{%- endfor %}
</tools>

For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags.
{%- endif %}<|im_end|>
{% endif %}
{%- for message in messages %}{%- if message.role == 'user' %}<|im_start|>user
{{ message.content }}<|im_end|>
{% elif message.role == 'assistant' %}<|im_start|>assistant
{% if message.content %}{{ message.content }}
{% endif %}{%- for tc in message.tool_calls %}<tool_call>
{"name": "{{ tc.function.name }}", "arguments": {{ tc.function.arguments | tojson }}}
</tool_call>
{% endfor %}<|im_end|>
{% elif message.role == 'tool' %}<|im_start|>user
<tool_response>
{{ message.content }}
</tool_response><|im_end|>
{% endif %}{%- endfor %}{%- if add_generation_prompt %}<|im_start|>assistant
{% endif %}`

// Renderer turns one model call into the prompt text the model saw, the
// way Ollama's server renders /api/chat: the driver's request, then the
// model's Go template or its built-in renderer.
type Renderer struct {
	tmpl     *template.Template
	renderer string
	// Driver holds the options the driver was run with (thinking).
	Driver ollama.Options
}

// NewTemplateRenderer renders with a Go chat template (Show.Template).
func NewTemplateRenderer(goTemplate string) (*Renderer, error) {
	t, err := template.Parse(goTemplate)
	if err != nil {
		return nil, fmt.Errorf("parse template: %w", err)
	}
	return &Renderer{tmpl: t}, nil
}

// NewBuiltinRenderer renders with one of Ollama's built-in renderers
// (Show.Renderer), used by models whose prompt is not a Go template.
func NewBuiltinRenderer(name string) *Renderer { return &Renderer{renderer: name} }

// Render returns the prompt of one call.
func (r *Renderer) Render(req agent.Request) (string, error) {
	cr, err := ollama.ChatRequest(r.Driver, req)
	if err != nil {
		return "", fmt.Errorf("render: %w", err)
	}
	return r.render(cr.Messages, cr.Tools, cr.Think)
}

// render mirrors Ollama's server renderPrompt (no truncation: a prompt
// longer than the context is refused by the engine instead).
func (r *Renderer) render(msgs []api.Message, tools []api.Tool, think *api.ThinkValue) (string, error) {
	if r.renderer != "" {
		s, err := renderers.RenderWithRenderer(r.renderer, msgs, tools, think)
		if err != nil {
			return "", fmt.Errorf("render: %w", err)
		}
		return s, nil
	}
	var b bytes.Buffer
	v := template.Values{Messages: msgs, Tools: tools, IsThinkSet: think != nil}
	if think != nil {
		v.Think, v.ThinkLevel = think.Bool(), think.String()
	}
	if err := r.tmpl.Execute(&b, v); err != nil {
		return "", fmt.Errorf("render: %w", err)
	}
	return b.String(), nil
}

// TemplateForGGUF picks the Go template for a GGUF given with --gguf: the
// tiny model's own (killchain.template), else the Ollama template nearest
// to its Jinja tokenizer.chat_template, as `ollama create` picks one.
func TemplateForGGUF(kv map[string]any) (string, error) {
	if s, ok := kv[TinyModelKV].(string); ok && s != "" {
		return s, nil
	}
	jinja, _ := kv["tokenizer.chat_template"].(string)
	if jinja == "" {
		return "", fmt.Errorf("the GGUF has no chat template: give one with --template")
	}
	n, err := template.Named(jinja)
	if err != nil {
		return "", fmt.Errorf("chat template: %w (give one with --template)", err)
	}
	return string(n.Bytes), nil
}
