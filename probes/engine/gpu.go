//go:build cgo

package engine

import (
	"fmt"

	"github.com/ollama/ollama/ml"
	"github.com/ollama/ollama/model"

	"github.com/killchain/killchain/probes"
)

// Devices lists the devices the ggml backend finds for the model at path,
// the way Ollama's runner discovers them: the model opened without
// allocating memory, then the backend asked. GPU backends are loaded at run
// time from OLLAMA_LIBRARY_PATH (an installed Ollama's lib/ollama); with
// none found, only the CPU is listed.
func Devices(path string) (devs []probes.Device, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("devices: %v", r)
		}
	}()
	m, err := model.New(path, ml.BackendParams{AllocMemory: false})
	if err != nil {
		return nil, fmt.Errorf("devices: %w", err)
	}
	defer m.Backend().Close()
	for _, d := range m.Backend().BackendDevices() {
		devs = append(devs, probes.Device{ID: d.ID, Library: d.Library, Name: d.Name, Description: d.Description,
			TotalMemory: d.TotalMemory, FreeMemory: d.FreeMemory})
	}
	return devs, nil
}

// gpuLayers places the first n layers (n < 0: all, the output layer too) on
// the first GPU the backend finds.
func gpuLayers(path string, n int) (ml.GPULayersList, error) {
	m, err := model.New(path, ml.BackendParams{AllocMemory: false})
	if err != nil {
		return nil, fmt.Errorf("gpu layers: %w", err)
	}
	defer m.Backend().Close()
	blocks := int(m.Backend().Config().Uint("block_count"))
	for _, d := range m.Backend().BackendDevices() {
		if d.Library == "" || d.Library == "CPU" {
			continue
		}
		if n < 0 || n > blocks {
			n = blocks + 1 // the output layer counts as one more
		}
		layers := make([]int, n)
		for i := range layers {
			layers[i] = i
		}
		return ml.GPULayersList{{DeviceID: d.DeviceID, Layers: layers}}, nil
	}
	return nil, fmt.Errorf("gpu layers: no GPU device found (set OLLAMA_LIBRARY_PATH to an installed Ollama's lib/ollama)")
}
