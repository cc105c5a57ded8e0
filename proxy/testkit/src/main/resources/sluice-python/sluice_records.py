"""Record types the Python scripts of several modules serialize with Confluent's serializers (the bridge's formats
test, the proxy's RecordValidation test): one definition, installed beside sluice_harness by PythonClients.
"""
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory


def quote_class():
    """acme.Quote {string sym = 1; int64 size = 2; double bid = 3; repeated string venues = 4;}, built without protoc."""
    fdp = descriptor_pb2.FileDescriptorProto(name="acme/quote.proto", package="acme", syntax="proto3")
    m = fdp.message_type.add(name="Quote")
    optional = descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL
    m.field.add(name="sym", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING, label=optional)
    m.field.add(name="size", number=2, type=descriptor_pb2.FieldDescriptorProto.TYPE_INT64, label=optional)
    m.field.add(name="bid", number=3, type=descriptor_pb2.FieldDescriptorProto.TYPE_DOUBLE, label=optional)
    m.field.add(name="venues", number=4, type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
                label=descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("acme.Quote"))
