<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>ErrorReporter</name>
    <message>
        <source>The details are also in the log file.</source>
        <translation>详细信息也已写入日志文件。</translation>
    </message>
    <message>
        <source>Unexpected error</source>
        <translation>意外错误</translation>
    </message>
</context>
<context>
    <name>Fonts</name>
    <message>
        <source>No Chinese font found: Chinese text may show as empty boxes. Install one (e.g. Noto Sans CJK: the fonts-noto-cjk package) and restart.</source>
        <translation>未找到中文字体：中文可能显示为空白方框。请安装一种中文字体（例如 Noto Sans CJK：fonts-noto-cjk 软件包）后重新启动。</translation>
    </message>
</context>
<context>
    <name>LanguageButton</name>
    <message>
        <source>The language of the interface (messages from the engine stay English)</source>
        <translation>界面语言（引擎给出的消息保持英文）</translation>
    </message>
    <message>
        <source>System</source>
        <translation>跟随系统</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>⚠ No Chinese font</source>
        <translation>⚠ 无中文字体</translation>
    </message>
    <message>
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <source>New model saved: %1 (pick its scorer to use it)</source>
        <translation>新模型已保存：%1（选择它的打分函数即可使用）</translation>
    </message>
</context>
<context>
    <name>ScorerFormulas</name>
    <message>
        <source>each layer; x_i: the layer&apos;s input</source>
        <translation>每一层；x_i：该层的输入</translation>
    </message>
    <message>
        <source>no attention weights</source>
        <translation>无注意力权重</translation>
    </message>
    <message>
        <source>4 scaled-dot heads</source>
        <translation>4 个缩放点积头</translation>
    </message>
    <message>
        <source>in the last layer</source>
        <translation>（最后一层）</translation>
    </message>
    <message>
        <source>for every step i</source>
        <translation>对每一步 i</translation>
    </message>
    <message>
        <source>last layer</source>
        <translation>最后一层</translation>
    </message>
    <message>
        <source>with</source>
        <translation>其中</translation>
    </message>
</context>
<context>
    <name>ScorerLabels</name>
    <message>
        <source>Additive (Bahdanau)</source>
        <translation>加性 (Bahdanau)</translation>
    </message>
    <message>
        <source>Bilinear (Luong &quot;general&quot;)</source>
        <translation>双线性 (Luong &quot;general&quot;)</translation>
    </message>
    <message>
        <source>Dot product</source>
        <translation>点积</translation>
    </message>
    <message>
        <source>Scaled dot product</source>
        <translation>缩放点积</translation>
    </message>
    <message>
        <source>None (fixed context C)</source>
        <translation>无注意力 (固定语义编码 C)</translation>
    </message>
    <message>
        <source>Multi-head (Vaswani, 4 heads)</source>
        <translation>多头 (Vaswani, 4 个头)</translation>
    </message>
    <message>
        <source>Transformer (Vaswani)</source>
        <translation>Transformer (Vaswani)</translation>
    </message>
</context>
</TS>
