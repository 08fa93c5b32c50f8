// What the device offers for sampling a client's imported pages directly (issue 24 item 7,
// docs/performance.md "Sampling the client's pages directly"): linear-tiling features, the
// row pitch and memory alignment of linear B8G8R8A8 images, the host-import alignment.
// cc bench/vk-linear-image.c -o /tmp/vk-linear-image -lvulkan && /tmp/vk-linear-image
#include <vulkan/vulkan.h>
#include <stdio.h>
#include <string.h>
int main(void) {
    VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO}; app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO}; ici.pApplicationInfo = &app;
    VkInstance inst; if (vkCreateInstance(&ici, 0, &inst)) return 1;
    uint32_t n = 1; VkPhysicalDevice pd; vkEnumeratePhysicalDevices(inst, &n, &pd);
    VkPhysicalDeviceProperties props; vkGetPhysicalDeviceProperties(pd, &props);
    printf("device %s\n", props.deviceName);
    VkPhysicalDeviceExternalMemoryHostPropertiesEXT host = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT};
    VkPhysicalDeviceProperties2 p2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2}; p2.pNext = &host;
    vkGetPhysicalDeviceProperties2(pd, &p2);
    printf("minImportedHostPointerAlignment %llu, maxTexelBufferElements %u, minTexelBufferOffsetAlignment %llu\n",
           (unsigned long long)host.minImportedHostPointerAlignment, props.limits.maxTexelBufferElements,
           (unsigned long long)props.limits.minTexelBufferOffsetAlignment);
    VkFormat fmts[2] = {VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM};
    for (int f = 0; f < 2; f++) {
        VkFormatProperties fp; vkGetPhysicalDeviceFormatProperties(pd, fmts[f], &fp);
        printf("format %d linear sampled %d linear filter %d uniform texel buffer %d\n", fmts[f],
               !!(fp.linearTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT),
               !!(fp.linearTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT),
               !!(fp.bufferFeatures & VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT));
    }
    float prio = 1; VkDeviceQueueCreateInfo q = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO}; q.queueCount = 1; q.pQueuePriorities = &prio;
    VkDeviceCreateInfo dci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO}; dci.queueCreateInfoCount = 1; dci.pQueueCreateInfos = &q;
    VkDevice dev; if (vkCreateDevice(pd, &dci, 0, &dev)) return 2;
    int widths[] = {24, 100, 480, 1000, 1920, 3840};
    for (int i = 0; i < 6; i++) {
        VkImageCreateInfo ii = {VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
        ii.imageType = VK_IMAGE_TYPE_2D; ii.format = VK_FORMAT_B8G8R8A8_UNORM; ii.extent.width = widths[i]; ii.extent.height = 64;
        ii.extent.depth = 1; ii.mipLevels = 1; ii.arrayLayers = 1; ii.samples = 1; ii.tiling = VK_IMAGE_TILING_LINEAR;
        ii.usage = VK_IMAGE_USAGE_SAMPLED_BIT; ii.initialLayout = VK_IMAGE_LAYOUT_PREINITIALIZED;
        VkImage img; if (vkCreateImage(dev, &ii, 0, &img)) { printf("width %d: create failed\n", widths[i]); continue; }
        VkImageSubresource sub = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0}; VkSubresourceLayout lay;
        vkGetImageSubresourceLayout(dev, img, &sub, &lay);
        VkMemoryRequirements req; vkGetImageMemoryRequirements(dev, img, &req);
        printf("width %d: rowPitch %llu (width*4 %d) offset %llu size %llu, memory alignment %llu\n", widths[i],
               (unsigned long long)lay.rowPitch, widths[i] * 4, (unsigned long long)lay.offset,
               (unsigned long long)lay.size, (unsigned long long)req.alignment);
        vkDestroyImage(dev, img, 0);
    }
    return 0;
}
