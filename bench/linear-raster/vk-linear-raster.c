// Does lavapipe (llvmpipe) draw Lamina-like textured quads on its linear path, and what does
// it save? Draws `--quads` axis-aligned 48 x 32 textured quads into a 1280 x 720 target,
// `--frames` times, and prints the wall and process CPU time per frame (the CPU time counts
// llvmpipe's rasterizer threads) and one pixel read back. Everything the linear path depends
// on is an option: target and texture format, a stencil attachment in the render pass, the
// fragment shader, blending, filter, texture scale, a sub-pixel offset, a scissor, and how the
// quads are drawn (one TRIANGLE_LIST draw, a draw per quad as a list, strip or fan, or one
// instanced strip draw as Lamina draws). docs/performance.md "llvmpipe's linear path and
// lavapipe" has the conditions and the figures. Two ways to see the path taken: the CPU time
// against the same run with `--shader TEX` (a shader the analysis refuses), and the variant's
// module in Mesa's shader cache (`MESA_SHADER_CACHE_DIR=DIR`, then each entry past its 72-byte
// header is zstd: a linear variant's module holds the function `fs_variant_linear`).
// Build: bench/linear-raster/build (glslc and cc), then /tmp/linear-raster/vk-linear-raster.
#include <vulkan/vulkan.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(x) do { VkResult r_ = (x); if (r_ != VK_SUCCESS) { fprintf(stderr, "%s failed: %d (line %d)\n", #x, r_, __LINE__); exit(1); } } while (0)

static VkDevice dev;
static VkPhysicalDevice pd;

static uint32_t memory_type(uint32_t bits, VkMemoryPropertyFlags want) {
    VkPhysicalDeviceMemoryProperties mp; vkGetPhysicalDeviceMemoryProperties(pd, &mp);
    for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) return i;
    fprintf(stderr, "no memory type\n"); exit(1);
}

static VkDeviceMemory allocate(VkMemoryRequirements req, VkMemoryPropertyFlags want) {
    VkMemoryAllocateInfo ai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size; ai.memoryTypeIndex = memory_type(req.memoryTypeBits, want);
    VkDeviceMemory m; CHECK(vkAllocateMemory(dev, &ai, 0, &m)); return m;
}

static VkBuffer buffer(VkDeviceSize size, VkBufferUsageFlags usage, VkDeviceMemory *mem, void **map) {
    VkBufferCreateInfo bi = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO}; bi.size = size; bi.usage = usage;
    VkBuffer b; CHECK(vkCreateBuffer(dev, &bi, 0, &b));
    VkMemoryRequirements req; vkGetBufferMemoryRequirements(dev, b, &req);
    *mem = allocate(req, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    CHECK(vkBindBufferMemory(dev, b, *mem, 0)); CHECK(vkMapMemory(dev, *mem, 0, size, 0, map));
    return b;
}

static VkImage image(int w, int h, VkFormat f, VkImageUsageFlags usage, VkDeviceMemory *mem) {
    VkImageCreateInfo ii = {VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    ii.imageType = VK_IMAGE_TYPE_2D; ii.format = f; ii.extent.width = w; ii.extent.height = h; ii.extent.depth = 1;
    ii.mipLevels = 1; ii.arrayLayers = 1; ii.samples = VK_SAMPLE_COUNT_1_BIT; ii.tiling = VK_IMAGE_TILING_OPTIMAL;
    ii.usage = usage; ii.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    VkImage im; CHECK(vkCreateImage(dev, &ii, 0, &im));
    VkMemoryRequirements req; vkGetImageMemoryRequirements(dev, im, &req);
    *mem = allocate(req, 0); CHECK(vkBindImageMemory(dev, im, *mem, 0));
    return im;
}

static VkImageView view(VkImage im, VkFormat f, VkImageAspectFlags aspect) {
    VkImageViewCreateInfo vi = {VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    vi.image = im; vi.viewType = VK_IMAGE_VIEW_TYPE_2D; vi.format = f;
    vi.subresourceRange.aspectMask = aspect; vi.subresourceRange.levelCount = 1; vi.subresourceRange.layerCount = 1;
    VkImageView v; CHECK(vkCreateImageView(dev, &vi, 0, &v)); return v;
}

static VkShaderModule shader(const char *dir, const char *name) {
    char path[512]; snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb"); if (!f) { fprintf(stderr, "cannot open %s\n", path); exit(1); }
    fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
    uint32_t *code = malloc(n); if (fread(code, 1, n, f) != (size_t)n) exit(1); fclose(f);
    VkShaderModuleCreateInfo si = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO}; si.codeSize = n; si.pCode = code;
    VkShaderModule m; CHECK(vkCreateShaderModule(dev, &si, 0, &m)); free(code); return m;
}

static void barrier(VkCommandBuffer cb, VkImage im, VkImageLayout from, VkImageLayout to,
                    VkAccessFlags src, VkAccessFlags dst, VkPipelineStageFlags s0, VkPipelineStageFlags s1) {
    VkImageMemoryBarrier b = {VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    b.oldLayout = from; b.newLayout = to; b.srcAccessMask = src; b.dstAccessMask = dst;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED; b.image = im;
    b.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT; b.subresourceRange.levelCount = 1; b.subresourceRange.layerCount = 1;
    vkCmdPipelineBarrier(cb, s0, s1, 0, 0, 0, 0, 0, 1, &b);
}

static double now(clockid_t c) { struct timespec t; clock_gettime(c, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }

int main(int argc, char **argv) {
    const char *target = "bgra", *texture = "bgra", *fs = "TEX", *filter = "nearest", *dir = "/tmp/linear-raster";
    int stencil = 0, scissor = 0, blend = 0, fan = 0, split = 0, strip = 0, instanced = 0, scale = 1, frames = 200, quads = 1000, QW = 48, QH = 32;
    double offset = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(a, "--target")) target = v; else if (!strcmp(a, "--texture")) texture = v;
        else if (!strcmp(a, "--shader")) fs = v; else if (!strcmp(a, "--filter")) filter = v;
        else if (!strcmp(a, "--stencil")) stencil = atoi(v); else if (!strcmp(a, "--blend")) blend = atoi(v);
        else if (!strcmp(a, "--fan")) fan = atoi(v);
        else if (!strcmp(a, "--split")) split = atoi(v);
        else if (!strcmp(a, "--strip")) strip = atoi(v);
        else if (!strcmp(a, "--scissor")) scissor = atoi(v);
        else if (!strcmp(a, "--instanced")) instanced = atoi(v);
        else if (!strcmp(a, "--scale")) scale = atoi(v); else if (!strcmp(a, "--frames")) frames = atoi(v);
        else if (!strcmp(a, "--quads")) quads = atoi(v); else if (!strcmp(a, "--offset")) offset = atof(v);
        else if (!strcmp(a, "--spv")) dir = v;
        else if (!strcmp(a, "--size")) { if (sscanf(v, "%dx%d", &QW, &QH) != 2) return 2; }
        else { printf("options: --target bgra|rgba --texture bgra|rgba --stencil 0|1 --shader TEX|TEX_PC|FLAT_COLOR|SOLID_PC|NOPERSP|VEC4_UV\n"
                       "         --blend 0|1 (premultiplied over) --filter nearest|linear --scale 1|2 (texture 48x32 or 96x64)\n"
                       "         --fan 0|1 (each quad a 4-vertex TRIANGLE_FAN draw of its own, not 6 vertices of one TRIANGLE_LIST draw)\n"
                       "         --split 0|1 (each quad a 6-vertex TRIANGLE_LIST draw of its own)\n"
                       "         --strip 0|1 (each quad a 4-vertex TRIANGLE_STRIP draw of its own)\n"
                       "         --instanced 0|1 (one instanced TRIANGLE_STRIP draw, the box per instance: inst.vert, with VEC4_UV)\n"
                       "         --scissor 0|1 (the draw scissored to the target's middle 1000 x 500, at odd pixels)\n"
                       "         --offset PX (sub-pixel shift) --size WxH (quad, default 48x32) --frames N --quads N --spv DIR\n"); return a[2] == 'h' ? 0 : 2; }
        i++;
    }
    const int W = 1280, H = 720, TW = QW * scale, TH = QH * scale;
    VkFormat tf = !strcmp(target, "rgba") ? VK_FORMAT_R8G8B8A8_UNORM : VK_FORMAT_B8G8R8A8_UNORM;
    VkFormat xf = !strcmp(texture, "rgba") ? VK_FORMAT_R8G8B8A8_UNORM : VK_FORMAT_B8G8R8A8_UNORM;
    const VkFormat sf = VK_FORMAT_S8_UINT;

    VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO}; app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO}; ici.pApplicationInfo = &app;
    VkInstance inst; CHECK(vkCreateInstance(&ici, 0, &inst));
    uint32_t n = 1; vkEnumeratePhysicalDevices(inst, &n, &pd);
    float prio = 1; VkDeviceQueueCreateInfo q = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO}; q.queueCount = 1; q.pQueuePriorities = &prio;
    VkDeviceCreateInfo dci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO}; dci.queueCreateInfoCount = 1; dci.pQueueCreateInfos = &q;
    CHECK(vkCreateDevice(pd, &dci, 0, &dev));
    VkQueue queue; vkGetDeviceQueue(dev, 0, 0, &queue);

    // Target, stencil, texture.
    VkDeviceMemory m;
    VkImage color = image(W, H, tf, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, &m);
    VkImageView colorView = view(color, tf, VK_IMAGE_ASPECT_COLOR_BIT);
    VkImage st = 0; VkImageView stView = 0;
    if (stencil) { st = image(W, H, sf, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, &m); stView = view(st, sf, VK_IMAGE_ASPECT_STENCIL_BIT); }
    VkImage tex = image(TW, TH, xf, VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, &m);
    VkImageView texView = view(tex, xf, VK_IMAGE_ASPECT_COLOR_BIT);
    VkDeviceMemory stageMem; uint8_t *stage;
    VkBuffer stageBuf = buffer((VkDeviceSize)W * H * 4, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, &stageMem, (void **)&stage);
    // Texel (x, y): red x*5, green y*7, blue 200, alpha 255, stored in the texture's byte order.
    for (int y = 0; y < TH; y++) for (int x = 0; x < TW; x++) {
        uint8_t *p = stage + (y * TW + x) * 4, r = (uint8_t)(x * 5), g = (uint8_t)(y * 7), b = 200;
        if (xf == VK_FORMAT_B8G8R8A8_UNORM) { p[0] = b; p[1] = g; p[2] = r; } else { p[0] = r; p[1] = g; p[2] = b; }
        p[3] = 255;
    }

    // Render pass and framebuffer.
    VkAttachmentDescription att[2] = {{0}};
    att[0].format = tf; att[0].samples = VK_SAMPLE_COUNT_1_BIT; att[0].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    att[0].storeOp = VK_ATTACHMENT_STORE_OP_STORE; att[0].stencilLoadOp = att[0].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    att[0].initialLayout = VK_IMAGE_LAYOUT_UNDEFINED; att[0].finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    att[1] = att[0]; att[1].format = sf; att[1].loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE; att[1].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    att[1].finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    VkAttachmentReference cref = {0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL}, sref = {1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
    VkSubpassDescription sub = {0}; sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    sub.colorAttachmentCount = 1; sub.pColorAttachments = &cref; if (stencil) sub.pDepthStencilAttachment = &sref;
    VkRenderPassCreateInfo rpi = {VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    rpi.attachmentCount = stencil ? 2 : 1; rpi.pAttachments = att; rpi.subpassCount = 1; rpi.pSubpasses = &sub;
    VkRenderPass rp; CHECK(vkCreateRenderPass(dev, &rpi, 0, &rp));
    VkImageView views[2] = {colorView, stView};
    VkFramebufferCreateInfo fbi = {VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
    fbi.renderPass = rp; fbi.attachmentCount = stencil ? 2 : 1; fbi.pAttachments = views; fbi.width = W; fbi.height = H; fbi.layers = 1;
    VkFramebuffer fb; CHECK(vkCreateFramebuffer(dev, &fbi, 0, &fb));

    // Descriptor set: the texture with a clamp-to-edge sampler.
    VkSamplerCreateInfo smi = {VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    smi.magFilter = smi.minFilter = !strcmp(filter, "linear") ? VK_FILTER_LINEAR : VK_FILTER_NEAREST;
    smi.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
    smi.addressModeU = smi.addressModeV = smi.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE; smi.maxLod = 0.25f;
    VkSampler sampler; CHECK(vkCreateSampler(dev, &smi, 0, &sampler));
    VkDescriptorSetLayoutBinding bind = {0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, 0};
    VkDescriptorSetLayoutCreateInfo dli = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO}; dli.bindingCount = 1; dli.pBindings = &bind;
    VkDescriptorSetLayout dsl; CHECK(vkCreateDescriptorSetLayout(dev, &dli, 0, &dsl));
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1};
    VkDescriptorPoolCreateInfo dpi = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO}; dpi.maxSets = 1; dpi.poolSizeCount = 1; dpi.pPoolSizes = &ps;
    VkDescriptorPool pool; CHECK(vkCreateDescriptorPool(dev, &dpi, 0, &pool));
    VkDescriptorSetAllocateInfo dai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO}; dai.descriptorPool = pool; dai.descriptorSetCount = 1; dai.pSetLayouts = &dsl;
    VkDescriptorSet set; CHECK(vkAllocateDescriptorSets(dev, &dai, &set));
    VkDescriptorImageInfo dii = {sampler, texView, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    VkWriteDescriptorSet wd = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}; wd.dstSet = set; wd.descriptorCount = 1;
    wd.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER; wd.pImageInfo = &dii;
    vkUpdateDescriptorSets(dev, 1, &wd, 0, 0);

    // Pipeline.
    VkPushConstantRange pcr = {VK_SHADER_STAGE_FRAGMENT_BIT, 0, 16};
    VkPipelineLayoutCreateInfo pli = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pli.setLayoutCount = 1; pli.pSetLayouts = &dsl; pli.pushConstantRangeCount = 1; pli.pPushConstantRanges = &pcr;
    VkPipelineLayout layout; CHECK(vkCreatePipelineLayout(dev, &pli, 0, &layout));
    char fsName[64]; snprintf(fsName, sizeof fsName, "%s.frag.spv", fs);
    int flat = !strcmp(fs, "FLAT_COLOR");
    VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}, {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
    stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT; stages[0].module = instanced ? shader(dir, "inst.vert.spv") : shader(dir, flat ? "quad-flat.vert.spv" : !strcmp(fs, "VEC4_UV") ? "quad-vec4.vert.spv" : "quad.vert.spv"); stages[0].pName = "main";
    stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT; stages[1].module = shader(dir, fsName); stages[1].pName = "main";
    VkVertexInputBindingDescription vb = {0, instanced ? 192 : 32, instanced ? VK_VERTEX_INPUT_RATE_INSTANCE : VK_VERTEX_INPUT_RATE_VERTEX};
    VkVertexInputAttributeDescription va[3] = {{0, 0, VK_FORMAT_R32G32_SFLOAT, 0}, {1, 0, VK_FORMAT_R32G32_SFLOAT, 8}, {2, 0, VK_FORMAT_R32G32B32A32_SFLOAT, 16}};
    VkPipelineVertexInputStateCreateInfo vi = {VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    vi.vertexBindingDescriptionCount = 1; vi.pVertexBindingDescriptions = &vb; vi.vertexAttributeDescriptionCount = instanced ? 1 : 3;
    vi.pVertexAttributeDescriptions = va;
    if (instanced) va[0].format = VK_FORMAT_R32G32B32A32_SFLOAT;
    VkPipelineInputAssemblyStateCreateInfo ia = {VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO}; ia.topology = fan ? VK_PRIMITIVE_TOPOLOGY_TRIANGLE_FAN : strip || instanced ? VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP : VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
    VkViewport vp = {0, 0, W, H, 0, 1}; VkRect2D sc = {{0, 0}, {W, H}};
    if (scissor) { sc.offset.x = 141; sc.offset.y = 111; sc.extent.width = 1000; sc.extent.height = 500; }
    VkPipelineViewportStateCreateInfo vps = {VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
    vps.viewportCount = 1; vps.pViewports = &vp; vps.scissorCount = 1; vps.pScissors = &sc;
    VkPipelineRasterizationStateCreateInfo rs = {VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    rs.polygonMode = VK_POLYGON_MODE_FILL; rs.cullMode = VK_CULL_MODE_NONE; rs.lineWidth = 1;
    VkPipelineMultisampleStateCreateInfo ms = {VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO}; ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
    VkPipelineDepthStencilStateCreateInfo ds = {VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
    VkPipelineColorBlendAttachmentState cba = {0};
    cba.colorWriteMask = 0xf; cba.blendEnable = blend ? VK_TRUE : VK_FALSE;
    cba.srcColorBlendFactor = cba.srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
    cba.dstColorBlendFactor = cba.dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
    VkPipelineColorBlendStateCreateInfo cb = {VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO}; cb.attachmentCount = 1; cb.pAttachments = &cba;
    VkGraphicsPipelineCreateInfo gpi = {VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
    gpi.stageCount = 2; gpi.pStages = stages; gpi.pVertexInputState = &vi; gpi.pInputAssemblyState = &ia; gpi.pViewportState = &vps;
    gpi.pRasterizationState = &rs; gpi.pMultisampleState = &ms; gpi.pDepthStencilState = stencil ? &ds : 0; gpi.pColorBlendState = &cb;
    gpi.layout = layout; gpi.renderPass = rp;
    VkPipeline pipe; CHECK(vkCreateGraphicsPipelines(dev, VK_NULL_HANDLE, 1, &gpi, 0, &pipe));

    // Vertices: quads at whole pixels (plus --offset), scattered over the target with overlap.
    VkDeviceMemory vmem; float *vtx;
    VkBuffer vbuf = buffer((VkDeviceSize)quads * 6 * 32, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vmem, (void **)&vtx);
    unsigned seed = 1;
    for (int i = 0; i < quads; i++) {
        seed = seed * 1103515245u + 12345u; int x = W > QW ? (int)((seed >> 8) % (W - QW)) : 0;
        seed = seed * 1103515245u + 12345u; int y = H > QH ? (int)((seed >> 8) % (H - QH)) : 0;
        if (i == quads - 1 && QW < W - 100) { x = 100; y = 100; }
        double x0 = x + offset, y0 = y + offset, x1 = x0 + QW, y1 = y0 + QH;
        double px[6] = {x0, x1, x0, x0, x1, x1}, py[6] = {y0, y0, y1, y1, y0, y1};
        double u[6] = {0, 1, 0, 0, 1, 1}, v[6] = {0, 0, 1, 1, 0, 1};
        if (strip) {  // TL, TR, BL, BR in the first four of the quad's six slots
            double sx[4] = {x0, x1, x0, x1}, sy[4] = {y0, y0, y1, y1}, su[4] = {0, 1, 0, 1}, sv[4] = {0, 0, 1, 1};
            for (int k = 0; k < 4; k++) { px[k] = sx[k]; py[k] = sy[k]; u[k] = su[k]; v[k] = sv[k]; }
        }
        if (fan) {  // TL, TR, BR, BL in the first four of the quad's six slots
            double fx[4] = {x0, x1, x1, x0}, fy[4] = {y0, y0, y1, y1}, fu[4] = {0, 1, 1, 0}, fv[4] = {0, 0, 1, 1};
            for (int k = 0; k < 4; k++) { px[k] = fx[k]; py[k] = fy[k]; u[k] = fu[k]; v[k] = fv[k]; }
        }
        for (int k = 0; k < 6; k++) {
            float *p = vtx + (i * 6 + k) * 8;
            p[0] = (float)(px[k] / W * 2 - 1); p[1] = (float)(py[k] / H * 2 - 1); p[2] = (float)u[k]; p[3] = (float)v[k];
            p[4] = p[5] = p[6] = p[7] = 1.0f;
        }
        if (instanced) {  // the quad's box as its instance's first attribute (stride 192: its six slots)
            float *p = vtx + i * 6 * 8;
            p[0] = (float)(x0 / W * 2 - 1); p[1] = (float)(y0 / H * 2 - 1); p[2] = (float)(x1 / W * 2 - 1); p[3] = (float)(y1 / H * 2 - 1);
        }
    }

    // Commands: upload once; each frame clears and draws every quad in one draw.
    VkCommandPoolCreateInfo cpi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    VkCommandPool cpool; CHECK(vkCreateCommandPool(dev, &cpi, 0, &cpool));
    VkCommandBufferAllocateInfo cai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO}; cai.commandPool = cpool; cai.commandBufferCount = 3;
    VkCommandBuffer cbs[3]; CHECK(vkAllocateCommandBuffers(dev, &cai, cbs));
    VkCommandBufferBeginInfo bbi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO}; si.commandBufferCount = 1;
    CHECK(vkBeginCommandBuffer(cbs[0], &bbi));
    barrier(cbs[0], tex, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
    VkBufferImageCopy region = {0}; region.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT; region.imageSubresource.layerCount = 1;
    region.imageExtent.width = TW; region.imageExtent.height = TH; region.imageExtent.depth = 1;
    vkCmdCopyBufferToImage(cbs[0], stageBuf, tex, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);
    barrier(cbs[0], tex, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_ACCESS_SHADER_READ_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT);
    CHECK(vkEndCommandBuffer(cbs[0]));
    si.pCommandBuffers = &cbs[0]; CHECK(vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE)); CHECK(vkQueueWaitIdle(queue));

    CHECK(vkBeginCommandBuffer(cbs[1], &bbi));
    VkClearValue clears[2]; memset(clears, 0, sizeof clears);
    VkRenderPassBeginInfo rbi = {VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    rbi.renderPass = rp; rbi.framebuffer = fb; rbi.renderArea.extent.width = W; rbi.renderArea.extent.height = H;
    rbi.clearValueCount = stencil ? 2 : 1; rbi.pClearValues = clears;
    vkCmdBeginRenderPass(cbs[1], &rbi, VK_SUBPASS_CONTENTS_INLINE);
    vkCmdBindPipeline(cbs[1], VK_PIPELINE_BIND_POINT_GRAPHICS, pipe);
    vkCmdBindDescriptorSets(cbs[1], VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &set, 0, 0);
    float pc[4] = {1, 1, 1, 1};
    vkCmdPushConstants(cbs[1], layout, VK_SHADER_STAGE_FRAGMENT_BIT, 0, 16, pc);
    VkDeviceSize zero = 0; vkCmdBindVertexBuffers(cbs[1], 0, 1, &vbuf, &zero);
    if (instanced) vkCmdDraw(cbs[1], 4, quads, 0, 0);
    else if (fan || strip) { for (int i = 0; i < quads; i++) vkCmdDraw(cbs[1], 4, 1, i * 6, 0); }
    else if (split) { for (int i = 0; i < quads; i++) vkCmdDraw(cbs[1], 6, 1, i * 6, 0); }
    else vkCmdDraw(cbs[1], quads * 6, 1, 0, 0);
    vkCmdEndRenderPass(cbs[1]);
    CHECK(vkEndCommandBuffer(cbs[1]));

    si.pCommandBuffers = &cbs[1];
    for (int i = 0; i < 5; i++) { CHECK(vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE)); CHECK(vkQueueWaitIdle(queue)); }
    double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
    for (int i = 0; i < frames; i++) { CHECK(vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE)); CHECK(vkQueueWaitIdle(queue)); }
    double w1 = now(CLOCK_MONOTONIC), c1 = now(CLOCK_PROCESS_CPUTIME_ID);

    // Read back: the pixel at (110, 110) lies in the last quad drawn (texel (10, 10) at scale 1).
    CHECK(vkBeginCommandBuffer(cbs[2], &bbi));
    VkBufferImageCopy back = region; back.imageExtent.width = W; back.imageExtent.height = H;
    vkCmdCopyImageToBuffer(cbs[2], color, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, stageBuf, 1, &back);
    CHECK(vkEndCommandBuffer(cbs[2]));
    si.pCommandBuffers = &cbs[2]; CHECK(vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE)); CHECK(vkQueueWaitIdle(queue));
    const uint8_t *p = stage + (110 * W + 110) * 4;
    int r = tf == VK_FORMAT_B8G8R8A8_UNORM ? p[2] : p[0], g = p[1], b = tf == VK_FORMAT_B8G8R8A8_UNORM ? p[0] : p[2];
    const char *perf = getenv("LP_PERF");
    printf("target %s texture %s stencil %d scissor %d fan %d split %d strip %d instanced %d shader %s blend %d filter %s scale %d offset %.2f LP_PERF=%s: "
           "%.2f ms/frame wall, %.2f ms/frame CPU; pixel (110,110) = %d %d %d %d\n",
           target, texture, stencil, scissor, fan, split, strip, instanced, fs, blend, filter, scale, offset, perf ? perf : "", (w1 - w0) / frames, (c1 - c0) / frames,
           r, g, b, p[3]);
    return 0;
}
